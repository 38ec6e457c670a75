// Per-request DataLoaders over the store's batch functions: every nested record of a page is fetched in one
// statement per relation, whatever the page size. Never shared between requests.
import DataLoader from 'dataloader';
import type { PackageFields, Store } from '../listing/store.js';

/** DataLoaders keyed by the package fields asked for: a batch reads one projection. */
function loaderPerFields<K, V>(batch: (fields: PackageFields) => DataLoader.BatchLoadFn<K, V>) {
  const loaders = new Map<string, DataLoader<K, V>>();
  return (fields: PackageFields): DataLoader<K, V> => {
    const key = fields ? [...fields].sort().join(',') : '*';
    let loader = loaders.get(key);
    if (!loader) {
      loader = new DataLoader(batch(fields));
      loaders.set(key, loader);
    }
    return loader;
  };
}

export function createLoaders(store: Store) {
  return {
    photographer: new DataLoader((ids: readonly string[]) => store.photographers(ids)),
    /** Photographers with a listed package, by id (the photographer query and federation's references). */
    listedPhotographer: new DataLoader((ids: readonly string[]) => store.listedPhotographers(ids)),
    /** Listed packages by id, with these fields (the package query and federation's references). */
    listedPackage: loaderPerFields((fields) => (ids: readonly string[]) => store.listedPackages(ids, fields)),
    photographerPositions: new DataLoader((ids: readonly string[]) => store.photographerPositions(ids)),
    /** The package at a listing position, with these fields: one loader per set of fields. */
    packageAtPosition: loaderPerFields(
      (fields) => (positions: readonly number[]) => store.packagesByPosition(positions, fields),
    ),
    packageImages: new DataLoader((ids: readonly string[]) => store.packageImages(ids)),
    priorityTags: new DataLoader((ids: readonly string[]) => store.priorityTags(ids)),
    simplePortfolio: new DataLoader((ids: readonly string[]) => store.simplePortfolio(ids)),
    linkedAddOns: new DataLoader((ids: readonly string[]) => store.linkedAddOns(ids)),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
