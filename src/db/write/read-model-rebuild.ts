// Building the read model in the writing transaction: whole, or only the documents a write touched, then the
// listing summary and the stamp that says for which listing version and format it was built. What it builds is
// described in src/db/write/read-model.ts.
import { BUILD_LISTING_SUMMARY } from './listing-summary.js';
import { LISTED, PACKAGE_DOCUMENTS, PHOTOGRAPHER_DOCUMENTS, READ_MODEL_FORMAT } from './read-model.js';

/** Runs SQL (with parameters $1, ...) in the writing transaction. */
export type Execute = (sql: string, ...params: unknown[]) => Promise<unknown>;

/**
 * What a write changed, for a rebuild of only the documents it touches: the packages written (created or
 * changed), the photographers written, and the shared records whose content changed (every document that
 * embeds one is rebuilt, whether or not its package was written).
 */
export interface ReadModelChange {
  packages: string[];
  photographers: string[];
  images: string[];
  socialSites: string[];
  priorityTags: string[];
  portfolio: string[];
  addOnTemplates: string[];
}

/** The change's lists as one row `c`, so every statement names all of its parameters (and so types them). */
const CHANGE = `WITH c AS (SELECT $1::uuid[] AS packages, $2::uuid[] AS photographers, $3::uuid[] AS images,
  $4::uuid[] AS social_sites, $5::uuid[] AS priority_tags, $6::uuid[] AS portfolio, $7::uuid[] AS add_on_templates)`;
const TOUCHED_PACKAGES = `SELECT unnest(c.packages) FROM c
  UNION SELECT package_id FROM package_image, c WHERE image_id = ANY(c.images)
  UNION SELECT package_id FROM package_priority_tag, c WHERE tag_id = ANY(c.priority_tags)
  UNION SELECT package_id FROM package_simple_portfolio, c WHERE portfolio_id = ANY(c.portfolio)
  UNION SELECT package_id FROM linked_add_on, c WHERE template_id = ANY(c.add_on_templates)`;
const TOUCHED_PHOTOGRAPHERS = `SELECT unnest(c.photographers) FROM c
  UNION SELECT photographer_id FROM photographer_cover_image, c WHERE image_id = ANY(c.images)
  UNION SELECT photographer_id FROM social, c WHERE social_site_id = ANY(c.social_sites)`;

/**
 * Builds the read model again from the tables and stamps it with the listing version and format; run it in the
 * transaction that writes the version, after the version is set. With `change`, only the documents it touches
 * are built again, and those of what is no longer listed are dropped; without, all of them.
 */
export async function rebuildReadModel(execute: Execute, change?: ReadModelChange): Promise<void> {
  // One rebuild at a time (an import and a start may meet): the second waits, then reads what the first wrote.
  await execute(
    'LOCK TABLE read_model_state, package_document, photographer_document, listing_summary IN SHARE ROW EXCLUSIVE MODE',
  );
  // A whole build takes longer than a request's statement may (half a minute at 100,000 packages): the writing
  // transaction is bounded by its writer, not by DB_STATEMENT_TIMEOUT.
  await execute('SET LOCAL statement_timeout = 0');
  // PostgreSQL's JIT compiles these wide expressions for longer than it takes to run them without: at 10,000
  // packages the photographers' documents took 5.1 s with it and 0.7 s without, the packages' 2.6 s and 1.4 s.
  await execute('SET LOCAL jit = off');
  // The documents are compressed with LZ4 where the server has it (PostgreSQL 14+ built with it; PGlite is not):
  // the packages' documents were written in 1.9 s against 2.7 s with the default pglz, at the same size.
  await execute(`SELECT set_config('default_toast_compression', 'lz4', true) FROM pg_settings
    WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`);
  if (!change) {
    await execute('DELETE FROM package_document');
    await execute('DELETE FROM photographer_document');
    await execute(
      `INSERT INTO photographer_document (photographer_id, v2, graphql, graphql_part_lengths) ${PHOTOGRAPHER_DOCUMENTS}`,
    );
    await execute(`INSERT INTO package_document (package_id, v2_rest, lists) ${PACKAGE_DOCUMENTS}`);
  } else {
    const params = [
      change.packages,
      change.photographers,
      change.images,
      change.socialSites,
      change.priorityTags,
      change.portfolio,
      change.addOnTemplates,
    ];
    await execute(
      `${CHANGE} DELETE FROM package_document d WHERE d.package_id IN (${TOUCHED_PACKAGES})
        OR NOT EXISTS (SELECT 1 FROM package p WHERE p.id = d.package_id AND p.status = 1)`,
      ...params,
    );
    await execute(
      `INSERT INTO package_document (package_id, v2_rest, lists)
        ${CHANGE} ${PACKAGE_DOCUMENTS} AND p.id IN (${TOUCHED_PACKAGES})`,
      ...params,
    );
    await execute(
      `${CHANGE} DELETE FROM photographer_document d WHERE d.photographer_id IN (${TOUCHED_PHOTOGRAPHERS})
        OR NOT ${LISTED('d.photographer_id')}`,
      ...params,
    );
    await execute(
      `INSERT INTO photographer_document (photographer_id, v2, graphql, graphql_part_lengths)
        ${CHANGE} ${PHOTOGRAPHER_DOCUMENTS} AND ph.id IN (${TOUCHED_PHOTOGRAPHERS})`,
      ...params,
    );
  }
  // The summary is of the whole listing, so it is made whole whatever the change (src/db/write/listing-summary.ts).
  await execute('DELETE FROM listing_summary');
  await execute(BUILD_LISTING_SUMMARY);
  await execute(`INSERT INTO read_model_state (id, listing_version, format)
    VALUES (1, coalesce((SELECT version FROM listing_version WHERE id = 1), 0), ${READ_MODEL_FORMAT})
    ON CONFLICT (id) DO UPDATE SET listing_version = EXCLUDED.listing_version, format = EXCLUDED.format`);
}

/** Whether the read model was built for the listing as it stands, in this build's format. */
export const READ_MODEL_CURRENT = `SELECT EXISTS (SELECT 1 FROM read_model_state s
  WHERE s.id = 1 AND s.format = ${READ_MODEL_FORMAT}
    AND s.listing_version = coalesce((SELECT version FROM listing_version WHERE id = 1), 0)) AS current`;
