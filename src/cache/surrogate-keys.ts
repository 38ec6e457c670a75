// Surrogate keys: what a CDN files a kept answer under (Fastly's Surrogate-Key, Cloudflare's Cache-Tag, Varnish's
// xkey), so that purging one key drops every answer holding it. An anonymous cacheable answer is filed under the
// listing version it was made from (`listing-<version>`: the key purged when a new version is seen, src/cache/
// purge.ts) and under each package and photographer it holds (`package-<id>`, `photographer-<id>`), noted as the
// store returns them. Past MAX_SURROGATE_KEY_BYTES (a page of 50 packages and their photographers fits; Varnish
// takes a header line of 8 kB by default, Fastly and Cloudflare 16 kB) the answer carries the version key alone,
// which a purge of the version still reaches.
import type { Store } from '../listing/store.js';

export const MAX_SURROGATE_KEY_BYTES = 8000;

/** The packages and photographers an answer holds, as its reads returned them. */
export interface Entities {
  packages: Set<string>;
  photographers: Set<string>;
}

export const newEntities = (): Entities => ({ packages: new Set(), photographers: new Set() });

export const versionKey = (version: string) => `listing-${version}`;

/** The answer's keys: the version's, then its packages' and photographers', or the version's alone past the bound. */
export function surrogateKeys(version: string, entities: Entities | undefined): string[] {
  const keys = [versionKey(version)];
  for (const id of entities?.packages ?? []) keys.push(`package-${id}`);
  for (const id of entities?.photographers ?? []) keys.push(`photographer-${id}`);
  const bytes = keys.reduce((sum, key) => sum + key.length + 1, 0);
  return bytes > MAX_SURROGATE_KEY_BYTES ? keys.slice(0, 1) : keys;
}

/** The headers that tell a CDN what the answer is filed under and how long it may keep it (until purged). */
export function surrogateHeaders(keys: string[], cdnMaxAgeSeconds: number): Record<string, string> {
  return {
    'surrogate-key': keys.join(' '),
    'cache-tag': keys.join(','),
    'surrogate-control': `max-age=${cdnMaxAgeSeconds}`,
  };
}

type Row = { id?: unknown; photographerId?: unknown } | null | undefined;

/** The store functions whose answers hold packages or photographers, and where their rows are. */
const HOLDERS: Partial<Record<keyof Store, 'packages' | 'photographers'>> = {
  packagesAtPositions: 'packages',
  packagesByPosition: 'packages',
  listedPackages: 'packages',
  listedPackageBySlug: 'packages',
  packagesSorted: 'packages',
  photographers: 'photographers',
  listedPhotographers: 'photographers',
};

function note(entities: Entities, kind: 'packages' | 'photographers', result: unknown): void {
  const rows: Row[] = Array.isArray(result)
    ? result
    : result && typeof result === 'object' && 'rows' in result
      ? (result as { rows: Row[] }).rows
      : [result as Row];
  for (const row of rows) {
    if (typeof row?.id !== 'string') continue;
    entities[kind].add(row.id);
    if (kind === 'packages' && typeof row.photographerId === 'string') entities.photographers.add(row.photographerId);
  }
}

/** The store, with every package and photographer its reads return noted in `entities()` (read at each call). */
export function notingEntities(store: Store, entities: () => Entities | undefined): Store {
  const noted = { ...store };
  for (const [name, kind] of Object.entries(HOLDERS) as [keyof Store, 'packages' | 'photographers'][]) {
    const read = store[name] as (...args: unknown[]) => Promise<unknown>;
    (noted as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const result = await read(...args);
      const into = entities();
      if (into) note(into, kind, result);
      return result;
    };
  }
  return noted;
}
