// The store: the only reader of the database. Each function is one SQL statement (prepared once per connection)
// on the request's read session, so everything a request reads comes from one state of the listing (src/db/sql.ts).
// The batch functions take many keys at once and answer in key order; the DataLoaders (src/graphql/loaders.ts)
// call them. Reads of a page bring the listing's version and size with their rows (`withListing`).
//
// Column lists come from the Prisma schema (src/db/columns.ts). Nested lists of a package come as plain rows,
// one statement per relation; a photographer comes with its embedded profile (review, socials, cover images,
// work days) in one statement, as JSON built by PostgreSQL.
import { jsonObject, selectList, tableName } from '../db/columns.js';
import type { Listing, ReadSession, SqlStatement } from '../db/sql.js';
import {
  effectiveCurrency,
  effectiveCurrencySymbol,
  PHOTOGRAPHER_GRAPHQL_HOLES,
  V2_RECORD,
} from '../db/write/read-model.js';
import { type Category, categoriesPart } from './categories.js';
import { type FacetColumns, facetColumnsPart } from './facets.js';
import { type PackageFilter, type SqlCondition, searchJoin } from './filter.js';
import { type MatchOrder, type MatchSets, matchKey } from './matches.js';
import type {
  ImageRow,
  LinkedAddOnRow,
  PackageRow,
  PhotographerProfile,
  PriorityTagRow,
  SimplePortfolioRow,
} from './rows.js';

const statement = (name: string, text: string): SqlStatement => ({ name, text: text.replace(/\s+/g, ' ').trim() });

/** No rows: a read of the listing's version and size alone (withListing adds them). */
const LISTING = statement('listing_state', 'SELECT NULL::int AS "none" WHERE false');

/**
 * The package fields a read returns (null: every one), from what the operation selects (src/graphql/projection.ts).
 * Every package read takes it, required: a read path that forgets it does not compile.
 */
export type PackageFields = readonly string[] | null;

/** At most this many projections are prepared by name per connection; others are planned on each run. */
const MAX_NAMED_PROJECTIONS = 64;
const projections = new Map<string, SqlStatement>();

/** Prepared text as bytes where the driver would decode it into a JavaScript string only to be encoded again. */
const preparedText = (column: string, asText: boolean) => (asText ? column : `convert_to(${column}, 'UTF8')`);

const PACKAGE_DOCUMENT = 'JOIN package_document d ON d.package_id = p.id';
const PHOTOGRAPHER_DOCUMENT = 'JOIN photographer_document pd ON pd.photographer_id = p.photographer_id';
/** The package's photographer's row (one join, whichever prepared fields read it). */
const PHOTOGRAPHER = 'JOIN photographer pph ON pph.id = p.photographer_id';

/**
 * Fields a package read can bring from the read model (src/db/write/read-model.ts) beside its columns: the
 * record's v2 text, its nested lists (so they need no statement of their own), its photographer's GraphQL
 * text with every field (src/graphql/prepared-photographers.ts), read only where a selection names it, and the
 * currency its prices are in (as `currencyCode` and `currencySymbol`).
 */
const PREPARED = (asText: boolean): Record<string, { select: string; joins: string[]; onlyNamed?: boolean }> => ({
  v2Record: {
    select: `${preparedText(V2_RECORD, asText)} AS "v2Record"`,
    joins: [PACKAGE_DOCUMENT, PHOTOGRAPHER_DOCUMENT],
  },
  lists: { select: 'd.lists AS "lists"', joins: [PACKAGE_DOCUMENT] },
  preparedPhotographer: {
    // The parts as one text, the parts' lengths in bytes, and the holes' values (PHOTOGRAPHER_GRAPHQL_HOLES).
    select: `${preparedText('pd.graphql', asText)} AS "photographerText", pd.graphql_part_lengths AS "photographerParts",
      ARRAY[${Object.values(PHOTOGRAPHER_GRAPHQL_HOLES).map((column) => `pph."${column}"`)}]::text[] AS "photographerHoles"`,
    joins: [PHOTOGRAPHER_DOCUMENT, PHOTOGRAPHER],
    onlyNamed: true,
  },
  currency: {
    select: `${effectiveCurrency('pph')} AS "currencyCode", ${effectiveCurrencySymbol('pph')} AS "currencySymbol"`,
    joins: [PHOTOGRAPHER],
  },
});

/**
 * The select list of a package read (`p`), the prepared fields with their joins after `FROM package p`;
 * `asText`: the session reads long texts as text (see ReadSession.textOverBytes).
 */
function packageColumns(fields: PackageFields, asText = false): { columns: string; joins: string } {
  const prepared = Object.entries(PREPARED(asText))
    .filter(([name, p]) => (fields ? fields.includes(name) : !p.onlyNamed))
    .map(([, p]) => p);
  if (prepared.length === 0) return { columns: selectList('Package', 'p', '', fields), joins: '' };
  const joins = new Set(prepared.flatMap((p) => p.joins));
  return {
    columns: [selectList('Package', 'p', '', fields), ...prepared.map((p) => p.select)].join(', '),
    joins: [...joins].join(' '),
  };
}

/** A statement over a projection of the package row `p`: `text` gets the select list and the joins. */
function projected(
  name: string,
  fields: PackageFields,
  asText: boolean,
  text: (columns: string, joins: string) => string,
): SqlStatement {
  const key = `${name}|${asText}|${fields ? [...fields].sort().join(',') : '*'}`;
  let found = projections.get(key);
  if (!found) {
    const { columns, joins } = packageColumns(fields, asText);
    if (projections.size >= MAX_NAMED_PROJECTIONS) return { text: statement('', text(columns, joins)).text };
    found = statement(`${name}_${projections.size}`, text(columns, joins));
    projections.set(key, found);
  }
  return found;
}

const page = (fields: PackageFields, asText: boolean) =>
  projected(
    'listing_page',
    fields,
    asText,
    (columns, joins) => `SELECT e.position AS "listingPosition", ${columns}
     FROM listing_entry e JOIN package p ON p.id = e.package_id ${joins}
     WHERE e.position = ANY($1::int[])`,
  );

const listedPackages = (fields: PackageFields, asText: boolean) =>
  projected(
    'listed_packages',
    fields,
    asText,
    (columns, joins) => `SELECT ${columns} FROM package p ${joins} WHERE p.id = ANY($1::uuid[]) AND p.status = 1`,
  );

const listedPackageBySlug = (fields: PackageFields, asText: boolean) =>
  projected(
    'listed_package_by_slug',
    fields,
    asText,
    // Slugs are unique per photographer, not across the marketplace: the first listed one by id wins.
    (columns, joins) =>
      `SELECT ${columns} FROM package p ${joins} WHERE p.url_slug = $1 AND p.status = 1 ORDER BY p.id LIMIT 1`,
  );

const PHOTOGRAPHER_POSITIONS = statement(
  'photographer_positions',
  `SELECT p.photographer_id AS "photographerId", e.position
   FROM listing_entry e JOIN package p ON p.id = e.package_id
   WHERE p.photographer_id = ANY($1::uuid[]) ORDER BY p.photographer_id, e.position`,
);

const PROFILE = `${selectList('Photographer', 'ph')},
  (SELECT ${jsonObject('Review', 'r')} FROM review r WHERE r.photographer_id = ph.id) AS review,
  coalesce((SELECT json_agg(${jsonObject('Social', 's', `'socialSite', ${jsonObject('SocialSite', 'ss')}`)} ORDER BY s.position)
    FROM social s JOIN social_site ss ON ss.id = s.social_site_id WHERE s.photographer_id = ph.id), '[]') AS socials,
  coalesce((SELECT json_agg(${jsonObject('PhotographerCoverImage', 'c', `'image', ${jsonObject('Image', 'i')}`)} ORDER BY c.position)
    FROM photographer_cover_image c JOIN image i ON i.id = c.image_id WHERE c.photographer_id = ph.id), '[]') AS "coverImages",
  coalesce((SELECT json_agg(${jsonObject('CalendarWorkDay', 'd')} ORDER BY d.position)
    FROM calendar_work_day d WHERE d.photographer_id = ph.id), '[]') AS "calendarWorkDays"`;

const PHOTOGRAPHERS = statement(
  'photographers',
  `SELECT ${PROFILE} FROM photographer ph WHERE ph.id = ANY($1::uuid[])`,
);

const LISTED_PHOTOGRAPHERS = statement(
  'listed_photographers',
  `SELECT ${PROFILE} FROM photographer ph
   WHERE ph.id = ANY($1::uuid[]) AND EXISTS (SELECT 1 FROM package p WHERE p.photographer_id = ph.id AND p.status = 1)`,
);

/** A package's ordered list of shared records: the link table's rows joined to the records. */
const children = (name: string, link: string, model: 'Image' | 'PriorityTag' | 'SimplePortfolio', key: string) =>
  statement(
    name,
    `SELECT l.package_id AS "packageId", ${selectList(model, 'x')}
     FROM ${link} l JOIN ${tableName(model)} x ON x.id = l.${key}
     WHERE l.package_id = ANY($1::uuid[]) ORDER BY l.package_id, l.position`,
  );

const IMAGES = children('package_images', 'package_image', 'Image', 'image_id');
const TAGS = children('package_tags', 'package_priority_tag', 'PriorityTag', 'tag_id');
const PORTFOLIO = children('package_portfolio', 'package_simple_portfolio', 'SimplePortfolio', 'portfolio_id');

const ADD_ONS = statement(
  'package_add_ons',
  `SELECT ${selectList('LinkedAddOn', 'l')}, ${selectList('AddOnTemplate', 't', 'template.')}
   FROM linked_add_on l JOIN add_on_template t ON t.id = l.template_id
   WHERE l.package_id = ANY($1::uuid[]) ORDER BY l.package_id, l.position`,
);

/** Rows grouped under the keys asked for, in key order (a key without rows gets an empty list). */
function groupedBy<Row extends { packageId: string }, Child>(
  keys: readonly string[],
  rows: Row[],
  childOf: (row: Row) => Child,
): Child[][] {
  const groups = new Map<string, Child[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(row.packageId)?.push(childOf(row));
  return keys.map((key) => groups.get(key) ?? []);
}

/** The row of each key asked for, in key order; null where there is none. */
function byKey<Row extends { id: string }>(keys: readonly string[], rows: Row[]): (Row | null)[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return keys.map((key) => byId.get(key) ?? null);
}

/** Moves the columns named `prefix.field` into a nested object under `prefix`. */
function nest<Row>(row: Record<string, unknown>, prefix: string): Row {
  const nested: Record<string, unknown> = {};
  const out: Record<string, unknown> = { [prefix]: nested };
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith(`${prefix}.`)) nested[key.slice(prefix.length + 1)] = value;
    else out[key] = value;
  }
  return out as Row;
}

/** This process's last view of the listing, shared by its requests: where a page's positions start from. */
export interface LastSeen {
  get(): Listing | undefined;
  set(listing: Listing): void;
}

export function lastSeenListing(): LastSeen {
  let last: Listing | undefined;
  return {
    get: () => last,
    set(listing) {
      last = listing;
    },
  };
}

export function createStore(sql: ReadSession, matchSets: MatchSets, lastSeen: LastSeen) {
  const asText = sql.textOverBytes === true;
  const matched = new Map<string, Promise<Int32Array>>();
  let listing: Promise<Listing> | undefined;
  const seen = <T extends { listing: Listing }>(read: T): T => {
    lastSeen.set(read.listing);
    return read;
  };

  /** The listed packages at these listing positions, in their order, null where none; and the listing. */
  async function packagesAtPositions(
    positions: readonly number[],
    fields: PackageFields,
  ): Promise<{ rows: (PackageRow | null)[]; listing: Listing }> {
    const read = seen(
      await sql.withListing<PackageRow & { listingPosition: number }>(page(fields, asText), [positions]),
    );
    // The rows as they come (their listingPosition is not a GraphQL field): no copy of each row.
    const byPosition = new Map<number, PackageRow>(read.rows.map((row) => [row.listingPosition, row]));
    return { rows: positions.map((position) => byPosition.get(position) ?? null), listing: read.listing };
  }

  return {
    /** The listing (version and size) as this session sees it: known from a read already made, or read now. */
    listing(): Promise<Listing> {
      const known = sql.knownListing();
      if (known) return Promise.resolve(known);
      listing ??= sql.withListing(LISTING).then((read) => seen(read).listing);
      return listing;
    },

    /** The best view of the listing without a read: this session's, else this process's last (a guess). */
    view(): Listing | undefined {
      return sql.knownListing() ?? lastSeen.get();
    },

    /** The positions kept for the filter in this listing version and order, if any (no read). */
    keptPositions: (filter: PackageFilter, version: string, order: MatchOrder = 'position') =>
      matchSets.kept(filter, version, order),

    /** The filter as its kept matches were read (its search corrected for typos, when that found them). */
    filterReadAs: (filter: PackageFilter, version: string, order: MatchOrder = 'position') =>
      matchSets.readAs(filter, version, order),

    packagesAtPositions,

    /** The listed packages at these listing positions, in the order of the positions; null where none. */
    async packagesByPosition(positions: readonly number[], fields: PackageFields): Promise<(PackageRow | null)[]> {
      return positions.length === 0 ? [] : (await packagesAtPositions(positions, fields)).rows;
    },

    /** Listed packages by id (UUIDs), with these fields, in key order; null where none is listed. */
    async listedPackages(ids: readonly string[], fields: PackageFields): Promise<(PackageRow | null)[]> {
      return byKey(ids, await sql.query<PackageRow>(listedPackages(fields, asText), [ids]));
    },

    async listedPackageBySlug(slug: string, fields: PackageFields): Promise<PackageRow | null> {
      const [row] = await sql.query<PackageRow>(listedPackageBySlug(fields, asText), [slug]);
      return row ?? null;
    },

    /**
     * The listing positions the filter matches in this listing, sorted or in rank order (kept per filter, listing
     * version and order).
     */
    matchingPositions(filter: PackageFilter, seen: Listing, order: MatchOrder = 'position'): Promise<Int32Array> {
      const key = matchKey(filter, seen.version, order);
      let positions = matched.get(key);
      if (!positions) {
        positions = matchSets.positions(sql, filter, seen.version, order);
        matched.set(key, positions);
      }
      return positions;
    },

    /**
     * A page of the listed packages matching `condition` (its parameters numbered from $3), in `orderBy`;
     * `withPhotographer` joins the photographer as `ph` for orders on its columns.
     */
    async packagesSorted(
      condition: SqlCondition,
      orderBy: string,
      withPhotographer: boolean,
      offset: number,
      limit: number,
      fields: PackageFields,
    ): Promise<{ rows: PackageRow[]; listing: Listing }> {
      const join = [
        condition.search ? searchJoin('p.id') : '',
        withPhotographer ? 'JOIN photographer ph ON ph.id = p.photographer_id' : '',
      ].join(' ');
      const { columns, joins } = packageColumns(fields, asText);
      const read = await sql.withListing<PackageRow>(
        {
          text: `SELECT ${columns} FROM package p ${join} ${joins}
                 WHERE p.status = 1 AND ${condition.text} ORDER BY ${orderBy} LIMIT $1 OFFSET $2`,
        },
        [limit, offset, ...condition.params],
      );
      return seen(read);
    },

    /** Each photographer's listed packages' positions, in listing order, in key order. */
    async photographerPositions(photographerIds: readonly string[]): Promise<number[][]> {
      const rows = await sql.query<{ photographerId: string; position: number }>(PHOTOGRAPHER_POSITIONS, [
        photographerIds,
      ]);
      const groups = new Map<string, number[]>(photographerIds.map((id) => [id, []]));
      for (const row of rows) groups.get(row.photographerId)?.push(row.position);
      return photographerIds.map((id) => groups.get(id) ?? []);
    },

    /** Photographers with at least one listed package, by id (UUIDs), in key order; null where there is none. */
    async listedPhotographers(ids: readonly string[]): Promise<(PhotographerProfile | null)[]> {
      return byKey(ids, await sql.query<PhotographerProfile>(LISTED_PHOTOGRAPHERS, [ids]));
    },

    /** The categories of the listed packages in this listing, with their counts (kept per listing version). */
    categories(seen: Listing): Promise<Category[]> {
      return categoriesPart.of(sql, seen.version);
    },

    /** What each listed package is for the facets, by listing position (kept per listing version). */
    facetColumns(seen: Listing): Promise<FacetColumns> {
      return facetColumnsPart.of(sql, seen.version);
    },

    /** Photographers with their profiles, in key order; null where there is none. */
    async photographers(ids: readonly string[]): Promise<(PhotographerProfile | null)[]> {
      return byKey(ids, await sql.query<PhotographerProfile>(PHOTOGRAPHERS, [ids]));
    },

    async packageImages(packageIds: readonly string[]): Promise<ImageRow[][]> {
      const rows = await sql.query<ImageRow & { packageId: string }>(IMAGES, [packageIds]);
      return groupedBy(packageIds, rows, ({ packageId: _, ...image }) => image as ImageRow);
    },

    async priorityTags(packageIds: readonly string[]): Promise<PriorityTagRow[][]> {
      const rows = await sql.query<PriorityTagRow & { packageId: string }>(TAGS, [packageIds]);
      return groupedBy(packageIds, rows, ({ packageId: _, ...tag }) => tag as PriorityTagRow);
    },

    async simplePortfolio(packageIds: readonly string[]): Promise<SimplePortfolioRow[][]> {
      const rows = await sql.query<SimplePortfolioRow & { packageId: string }>(PORTFOLIO, [packageIds]);
      return groupedBy(packageIds, rows, ({ packageId: _, ...entry }) => entry as SimplePortfolioRow);
    },

    async linkedAddOns(packageIds: readonly string[]): Promise<LinkedAddOnRow[][]> {
      const rows = await sql.query<Record<string, unknown> & { packageId: string }>(ADD_ONS, [packageIds]);
      return groupedBy(packageIds, rows, (row) => nest<LinkedAddOnRow>(row, 'template'));
    },
  };
}

export type Store = ReturnType<typeof createStore>;
