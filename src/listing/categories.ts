// The categories of the listed packages with their counts, for a storefront's category list. They change only
// with the listing, so they are read once per listing version (one GROUP BY over the listed packages) and kept
// in this process; every request in that version answers from memory after reading the version.
import type { SqlStatement } from '../db/sql.js';
import { keptPerVersion } from './per-version.js';

export interface Category {
  code: number;
  name: string;
  /** Listed packages in the category. */
  packageCount: number;
}

/**
 * Per code, one name: the one most listed packages give it (a dump may spell a category two ways), ties to the
 * first in sort order, so the answer is the same on every instance.
 */
export const CATEGORIES: SqlStatement = {
  name: 'categories',
  text: `SELECT category AS code, mode() WITHIN GROUP (ORDER BY category_name) AS name, count(*)::int AS "packageCount"
    FROM package WHERE status = 1 GROUP BY category ORDER BY category`.replace(/\s+/g, ' '),
};

/** The categories in a listing version, read with `read` unless kept (src/listing/per-version.ts). */
export const categoriesIn = keptPerVersion<Category[]>();
