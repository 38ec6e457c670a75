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

/**
 * The loaders of one request, each made on first use: most operations use one or two of them, and a page of
 * cards none (its own statement brings its rows).
 */
export function createLoaders(store: Store) {
  const made = new Map<string, unknown>();
  const once = <T>(name: string, make: () => T): T => {
    let loader = made.get(name) as T | undefined;
    if (loader === undefined) {
      loader = make();
      made.set(name, loader);
    }
    return loader;
  };
  return {
    get photographer() {
      return once('photographer', () => new DataLoader((ids: readonly string[]) => store.photographers(ids)));
    },
    /** Photographers with a listed package, by id (the photographer query and federation's references). */
    get listedPhotographer() {
      return once(
        'listedPhotographer',
        () => new DataLoader((ids: readonly string[]) => store.listedPhotographers(ids)),
      );
    },
    /** Listed packages by id, with these fields (the package query and federation's references). */
    get listedPackage() {
      return once('listedPackage', () =>
        loaderPerFields((fields) => (ids: readonly string[]) => store.listedPackages(ids, fields)),
      );
    },
    get photographerPositions() {
      return once(
        'photographerPositions',
        () => new DataLoader((ids: readonly string[]) => store.photographerPositions(ids)),
      );
    },
    /** The package at a listing position, with these fields: one loader per set of fields. */
    get packageAtPosition() {
      return once('packageAtPosition', () =>
        loaderPerFields((fields) => (positions: readonly number[]) => store.packagesByPosition(positions, fields)),
      );
    },
    get packageImages() {
      return once('packageImages', () => new DataLoader((ids: readonly string[]) => store.packageImages(ids)));
    },
    get priorityTags() {
      return once('priorityTags', () => new DataLoader((ids: readonly string[]) => store.priorityTags(ids)));
    },
    get simplePortfolio() {
      return once('simplePortfolio', () => new DataLoader((ids: readonly string[]) => store.simplePortfolio(ids)));
    },
    get linkedAddOns() {
      return once('linkedAddOns', () => new DataLoader((ids: readonly string[]) => store.linkedAddOns(ids)));
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
