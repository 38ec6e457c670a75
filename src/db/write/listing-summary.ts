// The listing summary (prisma/schema.prisma: ListingSummary): what search and facets need of the listing as a
// whole, made in the transaction that writes a listing version, so that no request reads across the whole
// listing. Read across the tables on a request's path, the typo vocabulary (ts_stat over every listed package)
// took 1.3 s and the facet columns 1.5 s at 100,000 packages, both growing with the listing; the summary is one
// row whose facet columns are packed binary (src/listing/facets.ts unpacks them), read in milliseconds. The
// categories with their counts are kept beside them.
import { effectiveCurrency, effectiveCurrencySymbol } from './read-model.js';

/** Photographers numbered 0..n-1 in identifier order: a package's facet column names its photographer so. */
const RANKED = `ranked AS (SELECT id, name, (row_number() OVER (ORDER BY id) - 1)::int AS ordinal FROM photographer)`;

/**
 * The listed packages' currencies (src/db/write/read-model.ts), numbered 0..n-1 in code order, each with the
 * symbol most of its packages show (ties to the first in sort order, so every instance says the same).
 */
const CURRENCIES = `currencies AS (SELECT code, symbol, (row_number() OVER (ORDER BY code) - 1)::int AS ordinal
  FROM (SELECT ${effectiveCurrency('ph')} AS code, mode() WITHIN GROUP (ORDER BY ${effectiveCurrencySymbol('ph')}) AS symbol
    FROM listing_entry e JOIN package p ON p.id = e.package_id JOIN photographer ph ON ph.id = p.photographer_id
    GROUP BY 1) c)`;

/** The words of the listed packages' search documents, with how many packages have each. */
const VOCABULARY = `vocabulary AS (SELECT coalesce(array_agg(word ORDER BY word), '{}') AS words,
    coalesce(array_agg(ndoc ORDER BY word), '{}') AS counts
  FROM ts_stat($$SELECT sd.document FROM package_search sd JOIN package p ON p.id = sd.package_id
    WHERE p.status = 1$$))`;

/**
 * The categories of the listed packages with their counts, by code. Per code, one name: the one most listed
 * packages give it (a dump may spell a category two ways), ties to the first in sort order, so the answer is the
 * same on every instance.
 */
const CATEGORIES = `categories AS (SELECT coalesce(json_agg(c ORDER BY c.code), '[]') AS categories FROM (
    SELECT category AS code, mode() WITHIN GROUP (ORDER BY category_name) AS name, count(*)::int AS "packageCount"
    FROM package WHERE status = 1 GROUP BY category) c)`;

/** One value per listed package, in listing order, each packed as `send` packs it (big-endian). */
const packed = (send: string) => `coalesce(string_agg(${send}, ''::bytea ORDER BY e.position), ''::bytea)`;
const flag = (column: string) => `CASE WHEN p.${column} THEN '\\x01'::bytea ELSE '\\x00'::bytea END`;

/** Writes the summary of the listing as the writing transaction leaves it, stamped with its version. */
export const BUILD_LISTING_SUMMARY = `INSERT INTO listing_summary (id, listing_version, words, word_packages,
    category, price_cents, instant_booking, featured, photographer, photographer_ids, photographer_names, categories,
    currency, currency_codes, currency_symbols)
  WITH ${RANKED}, ${VOCABULARY}, ${CATEGORIES}, ${CURRENCIES},
  facets AS (SELECT ${packed('int4send(p.category)')} AS category,
      ${packed('float8send((p.price * 100)::float8)')} AS price_cents,
      ${packed(flag('instant_booking'))} AS instant_booking,
      ${packed(flag('featured'))} AS featured,
      ${packed('int4send(r.ordinal)')} AS photographer,
      ${packed('int4send(cu.ordinal)')} AS currency
    FROM listing_entry e JOIN package p ON p.id = e.package_id JOIN ranked r ON r.id = p.photographer_id
      JOIN photographer ph ON ph.id = p.photographer_id JOIN currencies cu ON cu.code = ${effectiveCurrency('ph')})
  SELECT 1, coalesce((SELECT version FROM listing_version WHERE id = 1), 0), v.words, v.counts,
    f.category, f.price_cents, f.instant_booking, f.featured, f.photographer,
    (SELECT coalesce(array_agg(id::text ORDER BY ordinal), '{}') FROM ranked),
    (SELECT coalesce(array_agg(name ORDER BY ordinal), '{}') FROM ranked), c.categories, f.currency,
    (SELECT coalesce(array_agg(code ORDER BY ordinal), '{}') FROM currencies),
    (SELECT coalesce(array_agg(symbol ORDER BY ordinal), '{}') FROM currencies)
  FROM vocabulary v, facets f, categories c`;
