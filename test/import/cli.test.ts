// `npm run import` as a process: summary on stdout, errors on stderr in one line each and never a stack trace,
// exit code 1 when a source is not imported; legacy URLs followed with --follow and --limit-pages.
import { cpSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { generatePackages } from '../../src/demo/generate.js';
import { renderJson } from '../../src/rest/render.js';
import type { V2Package } from '../../src/v2/records.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import { createPostgresDatabaseUrl, engineName, onPostgres } from '../helpers/database.js';
import { type Exited, runScript } from '../helpers/server-process.js';
import { PGLITE_TEMPLATE } from '../helpers/templates.js';
import { dumpTables, pageJson, readListing, tempDir, writePages } from './helpers.js';

const dir = tempDir();
const dataDir = join(dir.path, 'data');
let env: Record<string, string>;
let dropDatabase = async () => {};
const generated = [...generatePackages({ count: 120, seed: 5 })];

let server: Server;
let base: string;

beforeAll(async () => {
  if (onPostgres) {
    const database = await createPostgresDatabaseUrl();
    env = { DATABASE_URL: database.url };
    dropDatabase = database.drop;
  } else {
    cpSync(PGLITE_TEMPLATE, dataDir, { recursive: true });
    env = { DATA_DIR: dataDir };
  }
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', base);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    if (url.pathname === '/legacy/v2/local-package-list/') {
      // two pages of 50, as the legacy service links them
      const next = offset === 0 ? `${base}/legacy/v2/local-package-list/?format=api&limit=50&offset=50&seed=9` : null;
      response.setHeader('content-type', 'application/json');
      response.end(pageJson(generated.slice(offset + 20, offset + 70), 100, next));
    } else {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<html><body>Bad gateway</body></html>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await dropDatabase();
  dir.remove();
});

/**
 * Runs the import; its stderr without the progress lines, which appear only when an import takes more than a
 * second (so on a busy machine, not on a quiet one).
 */
async function importCli(...args: string[]): Promise<Exited> {
  const run = await runScript('src/cli/import.ts', env, args);
  const stderr = run.stderr
    .split('\n')
    .filter((line) => !line.startsWith('importing '))
    .join('\n');
  return { ...run, stderr };
}

async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(
    onPostgres ? { kind: 'postgresql', url: env.DATABASE_URL as string } : { kind: 'pglite', dataDir },
  );
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

function expectOneErrorLine(run: Exited, pattern: RegExp) {
  expect(run.code, run.stderr).toBe(1);
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

describe(`npm run import on ${engineName}`, () => {
  it('imports a directory of pages and JSON Lines, then reports a repeat as unchanged', async () => {
    const pages = join(dir.path, 'pages');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(pages);
    writePages(pages, importEdgePackages, 5);
    const lines = join(dir.path, 'first.jsonl');
    writeFileSync(
      lines,
      `${generated
        .slice(0, 20)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );

    const run = await importCli(pages, lines);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`${pages}: 8 records: 8 created, 0 updated, 0 unchanged, 0 rejected (imported`);
    expect(run.stdout).toContain(`${lines}: 20 records: 20 created, 0 updated, 0 unchanged, 0 rejected (imported`);
    expect(run.stdout).toMatch(
      /^summary: 28 created, 0 updated, 0 unchanged, 0 rejected \(28 records read from 2 sources\) in \d+\.\d s$/m,
    );

    const again = await importCli(lines);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^summary: 0 created, 0 updated, 20 unchanged, 0 rejected/m);
    await withDatabase(async (db) => {
      const served = await readListing(db);
      for (const record of [...importEdgePackages, ...generated.slice(0, 20)].filter((r) => r.status === 1)) {
        expect(renderJson(served.get(record.identifier))).toBe(renderJson(record));
      }
    });
  });

  it('rejects a source with a bad record: names it, writes nothing of it, exits 1, keeps earlier data', async () => {
    const before = await withDatabase(dumpTables);
    const bad = structuredClone(generated[30]) as V2Package;
    (bad.photographer.calendar_work_days[2] as { work_times: string }).work_times = '[{"start":"9:00"}]';
    const path = join(dir.path, 'bad-page.json');
    writeFileSync(path, pageJson([generated[28], generated[29], bad, generated[31]]));

    const run = await importCli(path);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `error: ${path}: record ${bad.identifier} rejected: results[2].photographer.calendar_work_days[2].work_times: expected JSON text of [{start, end}] HHMM strings, got "[{\\"start\\":\\"9:00\\"}]"`,
      `error: ${path}: rejected, nothing from it was written (1 of 4 records invalid)`,
    ]);
    expect(run.stdout).toMatch(
      /^summary: 0 created, 0 updated, 0 unchanged, 1 rejected \(4 records read from 1 source \(1 not imported\)\)/m,
    );
    expect(await withDatabase(dumpTables)).toEqual(before);
  });

  it('validates without writing with --dry-run', async () => {
    const before = await withDatabase(dumpTables);
    const path = join(dir.path, 'dry.json');
    writeFileSync(path, JSON.stringify(generated.slice(40, 60)));
    const run = await importCli('--dry-run', path);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^summary: 20 valid, 0 rejected \(20 records read from 1 source\) in .*; dry run, nothing written$/m,
    );
    expect(await withDatabase(dumpTables)).toEqual(before);
  });

  it("follows a legacy service's next links, at most --limit-pages pages", async () => {
    const one = await importCli('--follow', '--limit-pages', '1', `${base}/legacy`);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^summary: 50 created, 0 updated, 0 unchanged, 0 rejected \(50 records read/m);
    const all = await importCli('--follow', `${base}/legacy/`);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^summary: 50 created, 0 updated, 50 unchanged, 0 rejected \(100 records read/m);
    await withDatabase(async (db) => {
      const served = await readListing(db);
      for (const record of generated.slice(20, 120)) {
        if (record.status === 1) expect(renderJson(served.get(record.identifier))).toBe(renderJson(record));
      }
    });
  });

  it('migrates a new database first, and loads no schema engine when no migration is pending', async () => {
    const path = join(dir.path, 'few.json');
    writeFileSync(path, JSON.stringify(generated.slice(60, 63)));
    const fresh = onPostgres ? await createPostgresDatabaseUrl({ empty: true }) : null;
    const freshEnv: Record<string, string> = fresh
      ? { DATABASE_URL: fresh.url, LOG_LEVEL: 'debug' }
      : { DATA_DIR: join(dir.path, 'new-data'), LOG_LEVEL: 'debug' };
    try {
      const steps = (run: Exited) => run.stderr.match(/^importing .*: [a-z ]+(?= \()/gm)?.map((l) => l.split(': ')[1]);
      const first = await runScript('src/cli/import.ts', freshEnv, [path]);
      expect(first.code, first.stderr).toBe(0);
      const written = ['reading', 'writing rows', 'listing order', 'read model', 'committing', 'committed'];
      expect(steps(first)).toEqual(['opening the database', 'migrating', ...written, 'closing the database']);
      // Nothing pending, nothing changed: no migration step, no read model, no listing order.
      const again = await runScript('src/cli/import.ts', freshEnv, [path]);
      expect(again.code, again.stderr).toBe(0);
      expect(steps(again)).toEqual([
        'opening the database',
        ...['reading', 'writing rows', 'committing', 'committed'],
        'closing the database',
      ]);
    } finally {
      await fresh?.drop();
    }
  });

  it('fails in one line, exit 1, on a malformed file, an unreachable URL and a non-JSON answer', async () => {
    const malformed = join(dir.path, 'malformed.json');
    writeFileSync(malformed, '{"count": 1, "next": null, "previous": null, "results": [}');
    expectOneErrorLine(await importCli(malformed), /^error: .*malformed\.json: malformed JSON: .+$/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expectOneErrorLine(
      await importCli(`http://127.0.0.1:${port}`),
      new RegExp(
        `^error: http://127\\.0\\.0\\.1:${port}/v2/local-package-list/: cannot be reached \\(ECONNREFUSED.*\\)$`,
      ),
    );
    expectOneErrorLine(
      await importCli(`${base}/maintenance`),
      /^error: http:.*\/maintenance\/v2\/local-package-list\/: the answer is not JSON \(content-type text\/html; charset=utf-8, body starts "<html><body>Bad gateway<\/body><\/html>"\)$/,
    );
    expectOneErrorLine(
      await importCli(join(dir.path, 'missing.json')),
      /^error: .*missing\.json: no such file or directory$/,
    );
    expectOneErrorLine(await importCli(), /^error: no source given \(usage: npm run import -- /);
    expectOneErrorLine(
      await importCli('--limit-pages', 'x', malformed),
      /^error: --limit-pages must be a whole number/,
    );
  });
});
