// The physical floor for the v2 page on this machine: a minimal node:http + pg handler, not part of the product.
// GET /v2/local-package-list/?limit=50&offset=0&seed=7 answers the same page as the product from ONE SQL
// statement that builds the whole response JSON inside PostgreSQL (json_build_object / json_agg, row_to_json
// for the 56-key package record, which exceeds json_build_object's 100-argument limit); Node only forwards
// the text. The positions are chosen exactly as the product chooses them: the seeded permutation of the
// listing positions, then `listing_entry.position = ANY($1)`.
//
// PostgreSQL only (PGlite lives inside the product's process and no `pg` client can reach it).
// Environment: BENCH_DATABASE_URL (required), PORT (0 = any free port), HOST (default 127.0.0.1).
// Also serves /healthz and /metrics (`db_queries_total`), so the bench reads it like the product.
import { createServer } from 'node:http';
import pg from 'pg';
import { type Permutation, pagePositions, seededPermutation } from '../src/listing/permutation.js';
import { nextLink, previousLink } from '../src/rest/links.js';
import { PAGE_SQL } from './floor-sql.js';

const LISTING_PATH = '/v2/local-package-list/';

function intParam(query: URLSearchParams, key: string, fallback: number): number {
  const value = Number(query.get(key) ?? Number.NaN);
  return Number.isSafeInteger(value) ? value : fallback;
}

async function main(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is not set (the floor is PostgreSQL-only)');
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  // The listing is read-only while the bench runs: count it once, as the product could.
  const { rows } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM listing_entry');
  const count = rows[0]?.count ?? 0;
  const permutations = new Map<number, Permutation>();
  let statements = 1;

  const server = createServer((request, response) => {
    const requestUrl = new URL(request.url ?? '/', 'http://floor');
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    if (requestUrl.pathname === '/healthz') return send(200, 'application/json', '{"status":"ok"}');
    if (requestUrl.pathname === '/metrics') {
      return send(200, 'text/plain', `# TYPE db_queries_total counter\ndb_queries_total ${statements}\n`);
    }
    if (requestUrl.pathname !== LISTING_PATH) return send(404, 'application/json', '{"detail":"Not found."}');

    const query = requestUrl.searchParams;
    const limit = Math.min(Math.max(intParam(query, 'limit', 50), 1), 100);
    const offset = Math.max(intParam(query, 'offset', 0), 0);
    const seed = intParam(query, 'seed', 7);
    if (!query.has('seed')) query.set('seed', String(seed));
    let permutation = permutations.get(seed);
    if (!permutation) {
      permutation = seededPermutation(count, seed);
      permutations.set(seed, permutation);
    }
    const positions = offset < count ? pagePositions(permutation, offset, limit) : [];
    const links = {
      base: `http://${request.headers.host}${LISTING_PATH}`,
      query,
      count,
      limit,
      offset: BigInt(offset),
    };
    statements++;
    pool.query<{ page: string }>(PAGE_SQL, [positions, count, nextLink(links), previousLink(links)]).then(
      (result) => send(200, 'application/json', result.rows[0]?.page ?? ''),
      (error: Error) => send(500, 'application/json', JSON.stringify({ detail: error.message })),
    );
  });

  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    console.log(`floor: http://127.0.0.1:${port}${LISTING_PATH} (${count} listed packages)`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void pool.end().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main().catch((error: Error) => {
  console.error(`floor: ${error.message}`);
  process.exit(1);
});
