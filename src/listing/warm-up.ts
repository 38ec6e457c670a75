// An instance prepares for a listing version before requests ask for it: what it keeps per version from the
// listing summary (the facet columns, the search vocabulary, the categories) is read at start, before the server
// listens, and again as soon as its version watch sees a new version, so a first request after a start or an
// import finds them kept. Each is kept under the version its own row was made for, so a version written between
// the reads is never kept under another. A read that fails is left to the first request that needs it.
import type { ReadPath } from '../db/sql.js';
import { categoriesPart } from './categories.js';
import { facetColumnsPart } from './facets.js';
import { vocabularyPart } from './typos.js';

export const WARM_UP_FAILED =
  'the listing summary could not be read ahead; the first requests that need it will read it';

/** Reads the listing summary's parts into the per-version keepers; resolves when all three are kept. */
export async function warmUp(read: Pick<ReadPath, 'single'>): Promise<void> {
  await Promise.all([facetColumnsPart, vocabularyPart, categoriesPart].map((part) => part.readAhead(read)));
}
