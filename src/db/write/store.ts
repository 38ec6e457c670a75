// Writes rows into the database in bulk. Each table gets one statement per chunk: the rows travel as ONE
// JSON parameter that PostgreSQL expands with json_populate_recordset, which is an order of magnitude faster
// than Prisma's createMany on PGlite (100,000 packages: ~8 minutes with createMany) and works unchanged on
// both engines. The rows are keyed by column name already (src/db/write/rows.ts); the tables, their order and
// what a repeated row means come from the registry (src/db/write/tables.ts).
import type { PrismaClient } from '../../generated/prisma/client.js';
import { type ReadModelChange, rebuildReadModel } from './read-model-rebuild.js';
import type { Row, Rows } from './rows.js';
import { LISTING_TABLE, type OwnedTable, TABLES } from './tables.js';

export type TransactionClient = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

// Rows per statement: large enough to amortise the round trip, small enough to keep memory flat.
const CHUNK = 2000;

async function bulkInsert(tx: TransactionClient, table: string, rows: Row[], skipExisting: boolean) {
  const conflict = skipExisting ? ' ON CONFLICT DO NOTHING' : '';
  for (let start = 0; start < rows.length; start += CHUNK) {
    await tx.$executeRawUnsafe(
      `INSERT INTO "${table}" SELECT * FROM json_populate_recordset(NULL::"${table}", $1::json)${conflict}`,
      JSON.stringify(rows.slice(start, start + CHUNK)),
    );
  }
}

export async function insertRows(tx: TransactionClient, rows: Rows): Promise<void> {
  for (const table of TABLES) await bulkInsert(tx, table.name, rows[table.name] ?? [], table.skipExisting);
}

/**
 * Lifts DB_STATEMENT_TIMEOUT for a writing transaction (an import, a seed): it bounds a request's reads, while a
 * write has statements that grow with the listing. Numbering 1,000,000 packages took longer than the 5 s default,
 * and the import was rolled back after 18 minutes of writing. The writer bounds its own work.
 */
export async function liftStatementTimeout(tx: TransactionClient): Promise<void> {
  await tx.$executeRawUnsafe('SET LOCAL statement_timeout = 0');
}

/** Empties every table of the listing, children first. */
export async function deleteEverything(tx: TransactionClient): Promise<void> {
  for (const table of [LISTING_TABLE, ...[...TABLES].reverse().map((t) => t.name)]) {
    await tx.$executeRawUnsafe(`DELETE FROM "${table}"`);
  }
}

/**
 * The versions listing_version_history keeps: a watch interval's commits, and every version a starting
 * instance purges (those superseded within CDN_MAX_AGE, src/cache/purge.ts) at a thousand imports a day.
 */
export const LISTING_VERSIONS_KEPT = 1000;

/**
 * Marks the listing as changed: gives it a new version, in the transaction that changed it, so what readers
 * keep keyed by the version (matching positions, cached answers) turns over exactly when that transaction
 * commits. The version is random rather than counted, so that two databases never share one (their answers
 * may meet in one Redis); its place among the others is recorded in listing_version_history. The read model is
 * built again with it (src/db/write/read-model.ts).
 */
export async function bumpListingVersion(tx: TransactionClient, change?: ReadModelChange): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO listing_version (id, version) VALUES (1, floor(random() * 9e18)::bigint)
    ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version`;
  // What requests read ready-made is made here, from the tables as this transaction leaves them: all of it, or
  // what `change` touches.
  await rebuildReadModel((sql, ...params) => tx.$executeRawUnsafe(sql, ...params), change);
  // After the read model, so its time is near the commit's. The row lock taken above makes a concurrent writer
  // wait for this commit before it bumps, so its seq (taken after) comes later: seq is commit order.
  await tx.$executeRaw`
    INSERT INTO listing_version_history (version, committed_at)
    SELECT version, clock_timestamp() FROM listing_version WHERE id = 1`;
  await tx.$executeRaw`
    DELETE FROM listing_version_history
    WHERE seq <= (SELECT max(seq) FROM listing_version_history) - ${LISTING_VERSIONS_KEPT}`;
}

/**
 * Gives the listing of a copied database a version of its own, everywhere the version is recorded, in one
 * statement: a copy of the prepared demo data (src/db/prepared-data.ts) would otherwise share its version with
 * every other copy. Nothing else changes, so the read model and the summary stay current.
 */
export const RENEW_LISTING_VERSION = `WITH fresh AS (SELECT floor(random() * 9e18)::bigint AS version),
  old AS (SELECT version FROM listing_version WHERE id = 1),
  listing AS (UPDATE listing_version SET version = (SELECT version FROM fresh) WHERE id = 1),
  history AS (UPDATE listing_version_history SET version = (SELECT version FROM fresh), committed_at = clock_timestamp()
    WHERE version = (SELECT version FROM old)),
  documents AS (UPDATE read_model_state SET listing_version = (SELECT version FROM fresh)
    WHERE listing_version = (SELECT version FROM old)),
  summary AS (UPDATE listing_summary SET listing_version = (SELECT version FROM fresh)
    WHERE listing_version = (SELECT version FROM old))
  SELECT version::text AS version FROM fresh`;

/**
 * Numbers the listed packages (status 1) 0..n-1 in identifier order, in listing_entry. The seeded listing
 * order permutes these positions; run it in the transaction that changed packages.
 */
export async function renumberListing(tx: TransactionClient): Promise<void> {
  await tx.$executeRaw`DELETE FROM listing_entry`;
  await tx.$executeRaw`
    INSERT INTO listing_entry (position, package_id)
    SELECT (row_number() OVER (ORDER BY id)) - 1, id FROM package WHERE status = 1`;
}

// ---------------------------------------------------------------------------------------------------------------
// Upserts for imports: the same one-JSON-parameter statements, but a stored row is replaced by the imported copy
// when its content differs, and left untouched (not even rewritten) when it is the same, so callers can tell
// created, updated and unchanged apart and a repeated import writes nothing.

// Characters of JSON per statement: bounds the parameter (and the memory it takes) when rows hold long texts.
const MAX_JSON_CHARS = 16 * 1024 * 1024;

interface JsonBatch {
  json: string;
  rows: Row[];
}

/**
 * The rows as JSON array texts of about CHUNK rows and MAX_JSON_CHARS characters at most. With `groupOf`, a
 * batch is only cut between groups, so the rows of one group (one owner's list) always travel together.
 */
function* jsonBatches(rows: Row[], groupOf?: (row: Row) => string): Generator<JsonBatch> {
  let parts: string[] = [];
  let batch: Row[] = [];
  let size = 0;
  let group: string | undefined;
  for (const row of rows) {
    const json = JSON.stringify(row);
    const rowGroup = groupOf?.(row);
    const full = parts.length >= CHUNK || size + json.length > MAX_JSON_CHARS;
    if (parts.length > 0 && full && (groupOf === undefined || rowGroup !== group)) {
      yield { json: `[${parts.join(',')}]`, rows: batch };
      parts = [];
      batch = [];
      size = 0;
    }
    parts.push(json);
    batch.push(row);
    size += json.length + 1;
    group = rowGroup;
  }
  if (parts.length > 0) yield { json: `[${parts.join(',')}]`, rows: batch };
}

const quoted = (column: string) => `"${column}"`;
/**
 * `= ANY (ARRAY(...))` over a JSON array of ids: the array is computed once and the match is an index lookup.
 * (`IN (SELECT ...)` over a function or CTE is planned with a guess of 100 rows and may scan the whole table.)
 */
const anyUuid = (param: string) => `ANY (ARRAY(SELECT value::uuid FROM json_array_elements_text(${param}::json)))`;

export interface UpsertedRow {
  id: string;
  /** True when the row was inserted, false when a stored row with other content was replaced. */
  created: boolean;
}

/**
 * Inserts the rows of a table keyed by `id`; a stored row with the same id is replaced when any column differs
 * (compared as the row's text, which also covers json columns). Returns only the rows written: a row left out
 * was stored already with the same content. `returning` adds SQL expressions over the written row `t`.
 */
export async function upsertById<Extra extends object = object>(
  tx: TransactionClient,
  table: string,
  rows: Row[],
  returning = '',
): Promise<(UpsertedRow & Extra)[]> {
  const first = rows[0];
  if (!first) return [];
  const columns = Object.keys(first).filter((c) => c !== 'id');
  const set = columns.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(', ');
  const written: (UpsertedRow & Extra)[] = [];
  for (const { json } of jsonBatches(rows)) {
    const result = await tx.$queryRawUnsafe<(UpsertedRow & Extra)[]>(
      `INSERT INTO "${table}" AS t SELECT * FROM json_populate_recordset(NULL::"${table}", $1::json)
       ON CONFLICT (id) DO UPDATE SET ${set} WHERE (t.*)::text IS DISTINCT FROM (excluded.*)::text
       RETURNING t.id::text AS id, (t.xmax = 0) AS created${returning ? `, ${returning}` : ''}`,
      json,
    );
    written.push(...result);
  }
  return written;
}

export interface ReplaceResult {
  /** Owners among `existing` whose stored rows differed from the given ones (now replaced). */
  changed: string[];
  /** Keyed rows not written because their id belongs to another owner already (or repeats among the rows). */
  refused: Row[];
}

/**
 * Makes the owners' rows in a table exactly the given ones (`rows` holds every row of these owners, each
 * owner's rows together). Owners in `existing` may have rows stored: they are compared, as the text of every
 * row, and replaced only when they differ. Owners in `fresh` were just created: their rows are inserted.
 */
export async function replaceOwned(
  tx: TransactionClient,
  spec: OwnedTable,
  owners: { existing: string[]; fresh: string[] },
  rows: Row[],
): Promise<ReplaceResult> {
  const ownerOf = (row: Row) => row[spec.owner.column] as string;
  const owner = quoted(spec.owner.column);
  const table = quoted(spec.name);
  const existing = new Set(owners.existing);
  const changed = new Set<string>();
  if (existing.size > 0) {
    const candidates = rows.filter((row) => existing.has(ownerOf(row)));
    for (const batch of jsonBatches(candidates, ownerOf)) {
      const result = await tx.$queryRawUnsafe<{ owner: string }[]>(
        `WITH incoming AS (SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)),
              new AS (SELECT i.${owner} AS owner, string_agg((i.*)::text, ',' ORDER BY (i.*)::text) AS rows
                      FROM incoming i GROUP BY i.${owner}),
              old AS (SELECT x.${owner} AS owner, string_agg((x.*)::text, ',' ORDER BY (x.*)::text) AS rows
                      FROM ${table} x WHERE x.${owner} = ANY (ARRAY(SELECT owner FROM new)) GROUP BY x.${owner})
         SELECT n.owner::text AS owner FROM new n LEFT JOIN old d ON d.owner = n.owner
         WHERE n.rows IS DISTINCT FROM d.rows`,
        batch.json,
      );
      for (const r of result) changed.add(r.owner);
    }
    // Owners that now have no rows here changed if they had some.
    const withRows = new Set(candidates.map(ownerOf));
    const emptied = [...existing].filter((o) => !withRows.has(o));
    if (emptied.length > 0) {
      const result = await tx.$queryRawUnsafe<{ owner: string }[]>(
        `SELECT DISTINCT ${owner}::text AS owner FROM ${table} WHERE ${owner} = ${anyUuid('$1')}`,
        JSON.stringify(emptied),
      );
      for (const r of result) changed.add(r.owner);
    }
  }
  if (changed.size > 0) {
    await tx.$executeRawUnsafe(`DELETE FROM ${table} WHERE ${owner} = ${anyUuid('$1')}`, JSON.stringify([...changed]));
  }
  const fresh = new Set(owners.fresh);
  const toWrite = rows.filter((row) => fresh.has(ownerOf(row)) || changed.has(ownerOf(row)));
  const refused: Row[] = [];
  for (const batch of jsonBatches(toWrite)) {
    if (!spec.owner.keyed) {
      await tx.$executeRawUnsafe(
        `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`,
        batch.json,
      );
      continue;
    }
    // ON CONFLICT DO NOTHING: an id held by another owner (or repeated in the batch) is left out, not an error.
    const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)
       ON CONFLICT DO NOTHING RETURNING id::text AS id`,
      batch.json,
    );
    if (inserted.length < batch.rows.length) {
      const written = new Set(inserted.map((r) => r.id));
      for (const row of batch.rows) {
        const id = (row as { id: string }).id;
        if (written.has(id))
          written.delete(id); // the first row with this id is the one written
        else refused.push(row);
      }
    }
  }
  return { changed: [...changed], refused };
}

/** The owner holding each of the given ids in a keyed owned table. */
export async function ownersOf(tx: TransactionClient, spec: OwnedTable, ids: string[]): Promise<Map<string, string>> {
  const rows = await tx.$queryRawUnsafe<{ id: string; owner: string }[]>(
    `SELECT id::text AS id, ${quoted(spec.owner.column)}::text AS owner FROM "${spec.name}"
     WHERE id = ${anyUuid('$1')}`,
    JSON.stringify(ids),
  );
  return new Map(rows.map((r) => [r.id, r.owner]));
}

/**
 * Refreshes the planner's statistics after a bulk write. Without them PostgreSQL plans the listing's joins
 * blind (a page took 0.3 s instead of milliseconds at 100,000 packages), and PGlite has no autovacuum to
 * gather them later. ANALYZE runs inside the write's transaction.
 */
export async function refreshStatistics(tx: TransactionClient): Promise<void> {
  await tx.$executeRaw`ANALYZE`;
}
