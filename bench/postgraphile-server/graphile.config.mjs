// PostGraphile v5 over the gateway's database: amber preset, pg adaptor, read-only, production settings.
//   ANCHOR_DATABASE_URL  the database (default postgresql://postgres@127.0.0.1:5432/anchor_bench)
// Read-only twice over: the mutation plugins are left out of the schema, and every connection runs with
// default_transaction_read_only=on. No GraphiQL (Ruru), no watch mode, no explain, no pgSettings (so no
// per-request transaction or set_config), no LISTEN/NOTIFY subscriber.
import pg from 'pg';
import { makePgService } from 'postgraphile/adaptors/pg';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const connectionString = process.env.ANCHOR_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/anchor_bench';

// Same pool size as the floor (bench/floor.ts: max 10). Statements are counted per pooled client.
export const pool = new pg.Pool({
  connectionString,
  max: 10,
  options: '-c default_transaction_read_only=on',
});
pool.on('error', () => {});
export const counters = { statements: 0 };
pool.on('connect', (client) => {
  const query = client.query.bind(client);
  client.query = (...args) => {
    counters.statements++;
    return query(...args);
  };
});

/** @type {GraphileConfig.Preset} */
export default {
  extends: [PostGraphileAmberPreset],
  disablePlugins: ['PgMutationCreatePlugin', 'PgMutationUpdateDeletePlugin', 'PgMutationPayloadEdgePlugin'],
  pgServices: [makePgService({ pool, schemas: ['public'], pubsub: false })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false, websockets: false },
  grafast: { explain: false },
};
