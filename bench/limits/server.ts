// The limits bench/limits.ts runs (the floor is bench/floor.ts):
// MODE=kept: the 50 kept records of probe.doc concatenated by PostgreSQL; Node forwards the text.
// MODE=slim: the slim GraphQL page's bytes ({"data":{"packages":{"results":[{id,title,price}...]}}}) from one
// statement reading 50 rows by position, written with JSON.stringify: what a small request costs in Node + pg.
// MODE=hit: a kept answer's bytes (HIT_FILE, sent with the headers of HIT_HEADERS, a JSON object, and HIT_STATUS)
// written for every request once its body is read, with no database: what node:http alone costs to send a hit.
// Run from the project root: MODE=kept PORT=4801 BENCH_DATABASE_URL=... npx tsx bench/limits/server.ts
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import pg from 'pg';
import { type Permutation, pagePositions, seededPermutation } from '../../src/listing/permutation.js';

const KEPT_SQL = `SELECT '{"count":' || $2::int || ',"next":' || to_json($3::text)::text || ',"previous":'
  || coalesce(to_json($4::text)::text, 'null') || ',"results":['
  || coalesce(string_agg(d.record, ',' ORDER BY array_position($1::int[], d.position)), '') || ']}' AS page
  FROM probe.doc d WHERE d.position = ANY($1::int[])`;
const SLIM_SQL = `SELECT p.id, p.title, p.price::text AS price FROM listing_entry l JOIN package p ON p.id = l.package_id
  WHERE l.position = ANY($1::int[]) ORDER BY array_position($1::int[], l.position)`;

function keptAnswer(): RequestListener {
  const body = readFileSync(String(process.env.HIT_FILE));
  const headers = JSON.parse(process.env.HIT_HEADERS ?? '{}') as Record<string, string>;
  const status = Number(process.env.HIT_STATUS ?? 200);
  const sent = status === 304 ? headers : { ...headers, 'content-length': String(body.length) };
  return (request, response) => {
    request.resume();
    request.on('end', () => {
      // The bench's readiness probe, which a kept 304 would not satisfy.
      if (request.url === '/healthz') return void response.end('ok');
      response.writeHead(status, sent);
      response.end(status === 304 ? undefined : body);
    });
  };
}

async function fromTheDatabase(): Promise<RequestListener> {
  const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });
  const count: number = (await pool.query('SELECT count(*)::int AS count FROM listing_entry')).rows[0].count;
  const permutations = new Map<number, Permutation>();
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://limit');
    const seed = Number(url.searchParams.get('seed') ?? 7);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    let permutation = permutations.get(seed);
    if (!permutation) {
      permutation = seededPermutation(count, seed);
      permutations.set(seed, permutation);
    }
    const positions = pagePositions(permutation, offset, 50);
    const next = `http://limit/v2/local-package-list/?limit=50&offset=${offset + 50}&seed=${seed}`;
    const failed = (error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    };
    if (process.env.MODE === 'slim') {
      pool.query({ name: 'slim', text: SLIM_SQL, values: [positions] }).then((result) => {
        response.writeHead(200, { 'content-type': 'application/graphql-response+json; charset=utf-8' });
        response.end(JSON.stringify({ data: { packages: { results: result.rows } } }));
      }, failed);
      return;
    }
    pool.query(KEPT_SQL, [positions, count, next, null]).then((result) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(result.rows[0].page);
    }, failed);
  };
}

const listener = process.env.MODE === 'hit' ? keptAnswer() : await fromTheDatabase();
createServer(listener).listen(Number(process.env.PORT ?? 4801), '127.0.0.1', () =>
  console.log(`${process.env.MODE} ready`),
);
