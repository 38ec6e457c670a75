// Per-request DataLoaders over the store's batch functions: every nested record of a page is fetched in one
// statement per relation, whatever the page size. Never shared between requests.
import DataLoader from 'dataloader';
import type { Store } from '../listing/store.js';

export function createLoaders(store: Store) {
  return {
    photographer: new DataLoader((ids: readonly string[]) => store.photographers(ids)),
    photographerPositions: new DataLoader((ids: readonly string[]) => store.photographerPositions(ids)),
    packageAtPosition: new DataLoader((positions: readonly number[]) => store.packagesByPosition(positions)),
    packageImages: new DataLoader((ids: readonly string[]) => store.packageImages(ids)),
    priorityTags: new DataLoader((ids: readonly string[]) => store.priorityTags(ids)),
    simplePortfolio: new DataLoader((ids: readonly string[]) => store.simplePortfolio(ids)),
    linkedAddOns: new DataLoader((ids: readonly string[]) => store.linkedAddOns(ids)),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
