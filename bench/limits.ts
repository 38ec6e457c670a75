// The limits beside the floor and PostGraphile (bench/limits/, not part of the product): what a page costs at the
// least on this machine, so each target can say how near its limit a path is.
// - the bare slim limit (MODE=slim): the slim GraphQL page's bytes from one statement by position, written by
//   node:http and JSON.stringify, with nothing else on the path;
// - the kept-records v2 limit (MODE=kept): the v2 page's 50 records kept as text once, concatenated by PostgreSQL
//   per request while Node only forwards them (the bytes' limit).
// - the hit limit (MODE=hit): a cached scenario's answer, its bytes and headers as the product sent them, written
//   by node:http from memory for every request: what a cache hit costs at the least.
// The kept texts (probe.doc, a schema of their own) are made once per database and made again when the listing's
// size changes.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, ROOT, runCommand, type ServerProcess, startProcess } from './harness.js';
import { graphqlRequest, restPage, type Scenario, SLIM_PAGE_QUERY } from './scenarios.js';

const LIMITS = join(ROOT, 'bench/limits');

export interface Limits {
  slim: ServerProcess;
  kept: ServerProcess;
  stop(): Promise<void>;
}

/** Whether the kept texts stand for every listed package of the database. */
async function keptTextsCurrent(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ exists: boolean; listed: number }>(
      `SELECT to_regclass('probe.doc') IS NOT NULL AS exists, (SELECT count(*)::int FROM listing_entry) AS listed`,
    );
    if (!rows[0]?.exists) return false;
    const kept = await client.query<{ kept: number }>('SELECT count(*)::int AS kept FROM probe.doc');
    return kept.rows[0]?.kept === rows[0].listed;
  } finally {
    await client.end();
  }
}

/** Both limit servers on the database. */
export async function startLimits(databaseUrl: string, log: (line: string) => void): Promise<Limits> {
  const env = { BENCH_DATABASE_URL: databaseUrl };
  if (!(await keptTextsCurrent(databaseUrl))) {
    log('limits: keeping every record as v2 text (probe.doc, once per listing size)');
    await runCommand('node', ['--import', 'tsx', join(LIMITS, 'kept-records.ts')], env);
  }
  const start = async (mode: string) => {
    const port = await freePort();
    return startProcess(
      join(LIMITS, 'server.ts'),
      { ...env, MODE: mode, PORT: String(port) },
      `http://127.0.0.1:${port}`,
    );
  };
  const slim = await start('slim');
  const kept = await start('kept').catch(async (error: Error) => {
    await slim.stop();
    throw error;
  });
  return { slim, kept, stop: async () => void (await Promise.all([slim.stop(), kept.stop()])) };
}

/** The limits' requests: the product's slim GraphQL page and v2 first page, as each limit serves them. */
export function limitScenarios(limits: Limits): [ServerProcess, Scenario][] {
  const slim = graphqlRequest(SLIM_PAGE_QUERY, {});
  return [
    [
      limits.slim,
      {
        id: 'limit-slim',
        label: 'bare limit: slim page of 50 (node:http, pg, JSON.stringify)',
        request: { ...slim, verify: (body) => body.startsWith('{"data":{"packages":{"results":[{') },
      },
    ],
    [limits.kept, { id: 'limit-kept', label: 'kept-records limit: v2 page of 50', request: restPage(0) }],
  ];
}

/** An answer as it left the product: status, headers and the bytes on the wire (compressed where it was). */
export interface SentAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers node:http writes itself, or that name one request or connection: the limit writes its own. */
const NOT_KEPT = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'content-length', 'transfer-encoding']);

/** A limit server that writes `answer` (its bytes and headers, from memory) for every request. */
export async function startHitLimit(answer: SentAnswer): Promise<ServerProcess> {
  const file = join(tmpdir(), `listing-bench-hit-${process.pid}`);
  writeFileSync(file, answer.body);
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !NOT_KEPT.has(name)));
  const port = await freePort();
  return startProcess(
    join(LIMITS, 'server.ts'),
    {
      MODE: 'hit',
      HIT_FILE: file,
      HIT_STATUS: String(answer.status),
      HIT_HEADERS: JSON.stringify(headers),
      PORT: String(port),
    },
    `http://127.0.0.1:${port}`,
  );
}
