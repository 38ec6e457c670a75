// The categories of the listed packages with their counts, for a storefront's category list. They change only
// with the listing, so they are counted at import into the listing summary (src/db/write/listing-summary.ts),
// read from it once per listing version and kept in this process; every request in that version answers from
// memory after reading the version.
import type { SqlStatement } from '../db/sql.js';
import { summaryPart } from './per-version.js';

export interface Category {
  code: number;
  name: string;
  /** Listed packages in the category. */
  packageCount: number;
}

/** The categories as the listing summary holds them: one row. */
export const CATEGORIES: SqlStatement = {
  name: 'categories',
  text: 'SELECT listing_version::text AS version, categories FROM listing_summary WHERE id = 1',
};

export interface CategoriesRow {
  /** The listing version the summary was made for. */
  version: string;
  categories: Category[];
}

/** The categories, kept per listing version. */
export const categoriesPart = summaryPart(CATEGORIES, (row: CategoriesRow | undefined) => row?.categories ?? []);
