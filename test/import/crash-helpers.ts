// For the crash test of imports: two dumps whose listings differ in count and content, an import killed (SIGKILL)
// at a time or at a step it names, the listing as a started server serves it, and what the database says of it.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, openDatabase } from '../../src/db/client.js';
import { PACKAGE_DOCUMENTS, PHOTOGRAPHER_DOCUMENTS } from '../../src/db/write/read-model.js';
import { READ_MODEL_CURRENT } from '../../src/db/write/read-model-rebuild.js';
import { generatePackages } from '../../src/demo/generate.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Package, V2Page } from '../../src/v2/records.js';
import { spawnScript, startServer } from '../helpers/server-process.js';
import { readListing } from './helpers.js';

/** A listing by package id: a digest of each record's v2 text. */
export type Listing = Map<string, string>;

export interface Dump {
  name: string;
  path: string;
  /** What the listing is once this dump is imported over the other one (or into an empty database). */
  listing: Listing;
}

const digest = (record: unknown) => createHash('sha256').update(renderJson(record)).digest('hex');

/**
 * A: `listed` packages, and `extra` more that are not listed (status 2). B: the same packages, every one of them
 * listed, each title and each photographer's name changed. Importing one over the other leaves exactly its listing.
 */
export function writeDumps(dir: string, listed: number, extra: number): { a: Dump; b: Dump } {
  const records = [...generatePackages({ count: listed + extra, seed: 11 })];
  const a = records.map((record, i) => (i < listed ? record : { ...record, status: 2 }));
  const b = structuredClone(records) as V2Package[]; // shared records stay shared: one photographer, one object
  const renamed = new Set<object>();
  for (const record of b) {
    record.title = `${record.title} (second edition)`;
    if (!renamed.has(record.photographer)) record.photographer.name = `${record.photographer.name} B`;
    renamed.add(record.photographer);
  }
  const dump = (name: string, list: V2Package[]): Dump => {
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(list));
    return { name, path, listing: new Map(list.filter((r) => r.status === 1).map((r) => [r.identifier, digest(r)])) };
  };
  return { a: dump('A', a), b: dump('B', b) };
}

/** Where a kill is aimed: milliseconds after the start, or the moment the import names a step. */
export type Aim = { ms: number } | { step: string };

export interface Kill {
  aim: string;
  /** The step the import had named last when it was killed: `starting` before any, `finished` if it ended first. */
  step: string;
  /** When the kill was sent (or the import ended), in milliseconds after the start. */
  atMs: number;
  /** The import's exit code when it ended before the kill. */
  code: number | null;
}

const STEP = /^importing .*: ([a-z ]+) \(\d+\.\d{3} s\)$/;

/** Runs an import of the dump with its steps logged and kills it with SIGKILL as aimed. */
export async function importKilled(env: Record<string, string>, dump: Dump, aim: Aim): Promise<Kill> {
  const run = spawnScript('src/cli/import.ts', { ...env, LOG_LEVEL: 'debug' }, [dump.path]);
  const started = performance.now();
  let step = 'starting';
  let killed: number | null = null;
  const kill = () => {
    if (killed !== null) return;
    killed = performance.now() - started;
    run.child.kill('SIGKILL');
  };
  let pending = '';
  run.child.stderr?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const named = STEP.exec(line)?.[1];
      if (named === undefined || killed !== null) continue;
      step = named;
      if ('step' in aim && named === aim.step) kill();
    }
  });
  const timer = 'ms' in aim ? setTimeout(kill, aim.ms) : undefined;
  const exited = await run.exited;
  clearTimeout(timer);
  const ended = performance.now() - started;
  const aimText = 'ms' in aim ? `${Math.round(aim.ms)} ms` : `at "${aim.step}"`;
  if (killed === null) {
    if (exited.code !== 0) throw new Error(`the import failed before its kill (${exited.code}):\n${exited.stderr}`);
    return { aim: aimText, step: 'finished', atMs: ended, code: exited.code };
  }
  return { aim: aimText, step, atMs: killed, code: null };
}

/** Runs an import to its end, its steps logged as when it is killed; its duration in milliseconds. */
export async function importWhole(env: Record<string, string>, dump: Dump): Promise<number> {
  const started = performance.now();
  const run = await spawnScript('src/cli/import.ts', { ...env, LOG_LEVEL: 'debug' }, [dump.path]).exited;
  if (run.code !== 0) throw new Error(`import of ${dump.name} failed (${run.code}):\n${run.stderr}`);
  return performance.now() - started;
}

/**
 * Starts the server on the database, reads the whole listing through GET /v2/local-package-list/ (following the
 * next links) and stops it. Its output is returned too: a start that had to build the read model says so.
 */
export async function servedListing(env: Record<string, string>): Promise<{ listing: Listing; output: string }> {
  const server = await startServer(env);
  let listing: Listing;
  try {
    listing = await readPages(server.url);
  } catch (error) {
    await server.stop('SIGTERM');
    throw error;
  }
  const code = await server.stop('SIGTERM');
  if (code !== 0) throw new Error(`the server exited with ${code}:\n${server.output()}`);
  return { listing, output: server.output() };
}

async function readPages(base: string): Promise<Listing> {
  const listing: Listing = new Map();
  let path: string | null = '/v2/local-package-list/?limit=100&seed=1';
  let count = -1;
  while (path) {
    const response = await fetch(`${base}${path}`);
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
    const page = (await response.json()) as V2Page;
    count = page.count;
    for (const record of page.results) listing.set(record.identifier, digest(record));
    path = page.next === null ? null : new URL(page.next).pathname + new URL(page.next).search;
  }
  if (count !== listing.size) throw new Error(`the pages say ${count} packages but hold ${listing.size}`);
  return listing;
}

export interface Stored {
  /** The listing as the app serves it in this process (asked for with `serve`). */
  listing?: Listing;
  version: string;
  /** Listed package ids as the package table and listing_entry hold them, sorted. */
  listed: string[];
  entries: string[];
  /** Whether the read model was built for this version and is what the tables give when built again. */
  readModelCurrent: boolean;
  readModelAgrees: boolean;
}

/**
 * What the database itself holds: its listing version, its listed packages and whether the read model agrees;
 * with `serve`, also the listing as the app (src/app.ts) serves it from this database, read in this process.
 */
export async function storedState(env: Record<string, string>, serve = false): Promise<Stored> {
  const db: Database = await openDatabase(
    env.DATABASE_URL
      ? { kind: 'postgresql', url: env.DATABASE_URL }
      : { kind: 'pglite', dataDir: env.DATA_DIR as string },
    { writes: false },
  );
  const query = <Row>(text: string) => db.read.single<Row>({ text });
  const texts = async (sql: string) =>
    (await query<{ t: string }>(`SELECT t FROM (${sql}) x ORDER BY 1`)).map((r) => r.t);
  try {
    const [version] = await query<{ v: string }>('SELECT version::text AS v FROM listing_version');
    const [state] = await query<{ current: boolean }>(READ_MODEL_CURRENT);
    const packages = (from: string) => texts(`SELECT package_id::text || v2_rest || lists::text AS t FROM (${from}) d`);
    const photographers = (from: string) => texts(`SELECT photographer_id::text || v2 AS t FROM (${from}) d`);
    const agrees =
      JSON.stringify(await packages('SELECT * FROM package_document')) ===
        JSON.stringify(await packages(PACKAGE_DOCUMENTS)) &&
      JSON.stringify(await photographers('SELECT * FROM photographer_document')) ===
        JSON.stringify(await photographers(PHOTOGRAPHER_DOCUMENTS));
    const served = serve ? await readListing(db) : undefined;
    return {
      listing: served && new Map([...served].map(([id, record]) => [id, digest(record)])),
      version: version?.v ?? 'none',
      listed: await texts('SELECT id::text AS t FROM package WHERE status = 1'),
      entries: await texts('SELECT package_id::text AS t FROM listing_entry'),
      readModelCurrent: state?.current === true,
      readModelAgrees: agrees,
    };
  } finally {
    await db.close();
  }
}

/** Whether two listings are the same records with the same content. */
export function sameListing(a: Listing, b: Listing): boolean {
  return a.size === b.size && [...a].every(([id, hash]) => b.get(id) === hash);
}
