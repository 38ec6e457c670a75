// Executable docs: every example of README.md and docs/*.md is run against a real server (the compiled server on a
// migrated copy of the template database with the demo data, the docs' address replaced by its own) and its
// output held to what the doc shows, or it is marked `<!-- illustrative: reason -->` just before it. GraphQL
// blocks are validated against the schema and sent; inline commands in prose name scripts and files that exist.
// The figures the docs state from this server (statements per page, metric names per engine) are measured here.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { generatePackages } from '../../src/demo/generate.js';
import { FullPageDocument } from '../../src/generated/graphql/graphql.js';
import { subgraphSdl } from '../../src/graphql/schema.js';
import { createPostgresDatabaseUrl, engineName, onPostgres } from '../helpers/database.js';
import { type Process, startRedis } from '../helpers/fleet.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';
import { allExamples, type Example, ROOT } from './doc-examples.js';
import {
  counter,
  exposedMetrics,
  invalidAgainstSchema,
  operationsOf,
  outputPattern,
  postQuery,
  shell,
  shownOutput,
  streaming,
} from './doc-runners.js';

const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
const examples = allExamples();
const outputs = new Set(examples.flatMap((e) => (e.output ? [e.output] : [])));
const KINDS = ['sh', 'graphql', 'json', 'yaml', 'ts', ''];
/** The fenced examples that must be run or marked: of the kinds a reader runs or copies, outputs aside. */
const fenced = examples.filter((e) => KINDS.includes(e.lang) && !outputs.has(e));
const inline = examples.filter((e) => e.lang === 'inline');

let server: ServerProcess;
let drop: (() => Promise<void>) | undefined;
let dataDir: string | undefined;
const work = mkdtempSync(join(tmpdir(), 'listing-docs-'));

let redis: Process | undefined;

beforeAll(async () => {
  // A Redis of its own: kept answers of another run (the same build and demo listing) would otherwise be hits here.
  redis = await startRedis();
  const env: Record<string, string> = {
    SEED_PACKAGES: '2000',
    RATE_LIMIT: '0',
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  };
  if (onPostgres) {
    const database = await createPostgresDatabaseUrl();
    drop = database.drop;
    serverDatabaseUrl = database.url;
    env.DATABASE_URL = database.url;
  } else {
    dataDir = copyOfTemplate();
    env.DATA_DIR = dataDir;
  }
  server = await startServer(env);
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await drop?.();
  await redis?.stop();
});

/** The environment a documented `npm run` tool gets: the test server's database. */
const databaseEnv = (): Record<string, string> =>
  dataDir ? { DATA_DIR: dataDir } : { DATABASE_URL: serverDatabaseUrl as string };
let serverDatabaseUrl: string | undefined;

/** What the docs show, run: each handler names the example by its file and first line. */
type Runner = (example: Example) => Promise<void>;
const runners: { file: string; starts: string; run: Runner }[] = [];
const runs = (file: string, starts: string, run: Runner) => runners.push({ file, starts, run });
const runnerOf = (e: Example) => runners.filter((r) => r.file === e.file && e.text.startsWith(r.starts));

/** A sh block of one command and its `# output` lines: run, the output held to them. */
async function commandWithOutput(example: Example): Promise<void> {
  const { command, output } = shownOutput(example.text);
  const ran = await shell(command, server.url);
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.stdout.trim()).toMatch(outputPattern(output, server.url));
}

runs('README.md', "curl -s http://127.0.0.1:4000/graphql -H 'content-type: application/json'", async (example) => {
  const ran = await shell(example.text, server.url);
  const answer = JSON.parse(ran.stdout) as { data: { packages: { seed: number; results: unknown[] } } };
  expect(answer).not.toHaveProperty('errors');
  expect(answer.data.packages.seed).toBe(7);
  expect(answer.data.packages.results).toHaveLength(3);
});
runs('README.md', "curl -s 'http://127.0.0.1:4000/v2/local-package-list/?limit=2&seed=7'", commandWithOutput);
runs('docs/v2.md', 'npm run check:v2 -- http://127.0.0.1:4000', async (example) => {
  const { command, output } = shownOutput(example.text);
  const ran = await shell(command.replace(/\s+#.*$/, ''), server.url, { timeout: 120_000 });
  expect(ran.code, ran.stdout).toBe(0);
  expect(ran.stdout.trim()).toMatch(outputPattern(output.replace(/^\.\.\.$/m, '...'), server.url));
});
runs('docs/security.md', 'npm run api-key -- --name storefront --scopes private', async (example) => {
  const ran = await shell(shownOutput(example.text).command, server.url, { env: { PORT: 'not a port' } });
  expect(ran.code).toBe(0);
  expect(ran.stdout).toMatch(/^ {2}lgw_\S+$/m);
  expect(ran.stdout).toMatch(/^ {2}storefront:private:[0-9a-f]{64}$/m);
  expect(ran.stdout).toMatch(/^ {2}storefront:[0-9a-f]{64}$/m);
});
runs('docs/graphql.md', 'scalars:', async (example) => {
  expect(readFileSync(join(ROOT, 'codegen.ts'), 'utf8')).toContain(example.text.trim());
});
runs('docs/graphql.md', 'type Package implements Node @key', async (example) => {
  const sdl = subgraphSdl().replace(/\s+/g, ' ');
  for (const line of example.text.split('\n')) expect(sdl).toContain(line.replace(/\{.*$/, '{').trim());
});
runs('docs/graphql.md', '[{ "type": "FIELD_REMOVED"', async (example) => {
  const entries = JSON.parse(example.text) as Record<string, string>[];
  const accepted = JSON.parse(readFileSync(join(ROOT, 'src/graphql/accepted-changes.json'), 'utf8')) as object[];
  expect(Array.isArray(accepted)).toBe(true);
  for (const entry of entries) expect(Object.keys(entry)).toEqual(['type', 'path', 'reason']);
});
runs('docs/import.md', 'npm run build', async (example) => {
  const synopsis = example.text.split('\n')[1] as string;
  const ran = await shell('node dist/cli/import.js --help', server.url);
  expect(ran.stdout.trim()).toBe(`usage: ${synopsis.trim()}`);
});
runs('docs/development.md', 'prisma/schema.prisma', async (example) => {
  const paths = [
    ...example.text.matchAll(
      /(?:^|\s)((?:prisma|src|test|bench|examples|docs|deploy)\/(?:[\w.-]+\/)*[\w.-]*)(?=\s|,|$)/gm,
    ),
  ];
  expect(paths.length).toBeGreaterThan(10);
  for (const [, path] of paths) expect(existsSync(join(ROOT, path as string)), path).toBe(true);
});

/** A v2 page of the test server, parsed. */
async function v2Page(query: string): Promise<{ count: number; results: Record<string, unknown>[] }> {
  return (await fetch(`${server.url}/v2/local-package-list/?${query}`)).json() as never;
}

/** The import tool as `npm run import` runs it, in `cwd`, on the test server's database. */
const importTool = (args: string, cwd: string) =>
  shell(`node ${join(ROOT, 'dist/cli/import.js')} ${args}`, server.url, { cwd, env: databaseEnv(), timeout: 120_000 });

runs('docs/graphql.md', "curl -N -G -H 'accept: text/event-stream'", async (example) => {
  const stream = streaming(example.text, server.url);
  await new Promise((resolve) => setTimeout(resolve, 2500)); // subscribed, and the watch has its first version
  const [record] = (await v2Page('limit=1&seed=99')).results;
  const changed = { ...record, price: `${(Number(record?.price) + 1).toFixed(2)}` };
  const dir = mkdtempSync(join(work, 'sse-'));
  writeFileSync(join(dir, 'changed.jsonl'), `${JSON.stringify(changed)}\n`);
  const imported = await importTool('changed.jsonl', dir);
  expect(imported.code, imported.stderr).toBe(0);
  // The event comes within about a second of the commit (the watch's interval); a loaded machine gets 15 s.
  const until = Date.now() + 15_000;
  const told = (out: string) => out.indexOf('event: next') >= 0 && out.includes('\n\n', out.indexOf('event: next'));
  while (!told(stream.output()) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  stream.stop();
  expect(stream.output().replace(/\n+$/, '').trim()).toMatch(
    outputPattern((example.output as Example).text, server.url),
  );
});

runs('docs/import.md', 'error: pages/page-1.json: record', async (example) => {
  const page = await v2Page('limit=50&seed=3');
  const days = (
    (page.results[2] as { photographer: unknown }).photographer as { calendar_work_days: { work_times: string }[] }
  ).calendar_work_days;
  (days[2] as { work_times: string }).work_times = '[{"start":"9:00"}]';
  const dir = mkdtempSync(join(work, 'rejected-'));
  mkdirSync(join(dir, 'pages'));
  writeFileSync(join(dir, 'pages/page-1.json'), JSON.stringify({ ...page, next: null, previous: null }));
  const ran = await importTool('pages/page-1.json', dir);
  expect(ran.code).toBe(1);
  const errors = ran.stderr.split('\n').filter((line) => line.startsWith('error: '));
  expect(errors.join('\n')).toMatch(outputPattern(example.text, server.url));
});

runs('docs/import.md', 'pages: 8 records:', async (example) => {
  const records = [...generatePackages({ count: 28, seed: 4242 })].map((r) => ({ ...r, status: 1 }));
  const dir = mkdtempSync(join(work, 'imported-'));
  mkdirSync(join(dir, 'pages'));
  writeFileSync(
    join(dir, 'pages/page-1.json'),
    JSON.stringify({ count: 8, next: null, previous: null, results: records.slice(0, 8) }),
  );
  writeFileSync(
    join(dir, 'first.jsonl'),
    records
      .slice(8)
      .map((r) => JSON.stringify(r))
      .join('\n'),
  );
  const before = (await v2Page('limit=1&seed=1')).count;
  const ran = await importTool('pages first.jsonl', dir);
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.stdout.trim()).toMatch(outputPattern(example.text, server.url));
  expect((await v2Page('limit=1&seed=1')).count).toBe(before + 28); // readers see the new listing whole
});

describe(`the docs' examples, on ${engineName}`, () => {
  it('finds the examples: fenced blocks of every kind, and commands in prose', () => {
    expect(fenced.length).toBeGreaterThan(20);
    expect(inline.length).toBeGreaterThan(20);
    expect(new Set(fenced.map((e) => e.lang))).toEqual(new Set(KINDS));
  });

  it('runs or marks every fenced example (marked: an illustrative comment with a reason just before it)', () => {
    const uncovered = fenced
      .filter((e) => !e.illustrative && !(e.lang === 'graphql' && !e.text.includes(' ...')) && runnerOf(e).length !== 1)
      .map((e) => `${e.file}:${e.line}: ${e.text.split('\n')[0]}`);
    expect(uncovered).toEqual([]);
    const markedAndRun = fenced
      .filter((e) => e.illustrative && runnerOf(e).length > 0)
      .map((e) => `${e.file}:${e.line}`);
    expect(markedAndRun).toEqual([]);
    const stale = runners.filter((r) => !fenced.some((e) => e.file === r.file && e.text.startsWith(r.starts)));
    expect(stale.map((r) => `${r.file}: ${r.starts}`)).toEqual([]);
    console.log(
      `docs examples: ${fenced.filter((e) => !e.illustrative).length} fenced run, ${fenced.filter((e) => e.illustrative).length} marked illustrative, ${inline.length} inline commands checked`,
    );
  });

  it('parses what is marked illustrative where it can be parsed (yaml, json)', () => {
    for (const e of fenced.filter((x) => x.illustrative && x.lang === 'yaml'))
      expect(() => parseYaml(e.text)).not.toThrow();
  });

  it.each(
    fenced
      .filter((e) => e.lang === 'graphql' && !e.illustrative && !e.text.includes(' ...'))
      .map((e) => [`${e.file}:${e.line}`, e]),
  )('%s: every operation is valid against the schema and runs without errors', async (_, example) => {
    const operations = operationsOf((example as Example).text);
    expect(operations.length).toBeGreaterThan(0);
    for (const operation of operations) {
      expect(invalidAgainstSchema(operation)).toEqual([]);
      const { status, body } = await postQuery(server.url, operation);
      expect(body.errors, operation).toBeUndefined();
      expect(status).toBe(200);
    }
  });

  // In the order of the docs: the imports come last, after the examples that show the demo listing's count.
  it.each(fenced.filter((e) => !e.illustrative && runnerOf(e).length === 1).map((e) => [`${e.file}:${e.line}`, e]))(
    '%s: runs and gives what the doc shows',
    async (_, example) => {
      await (runnerOf(example as Example)[0] as { run: Runner }).run(example as Example);
    },
    120_000,
  );

  it('names, in every command written in prose, a script, file or address that exists', async () => {
    for (const { text, file, line } of inline) {
      const where = `${file}:${line}: ${text}`;
      const script = /^npm run (?:-s )?([\w:-]+)/.exec(text)?.[1];
      if (script) expect(scripts[script], where).toBeDefined();
      const path = /^(?:npx tsx|node) (\S+)/.exec(text)?.[1];
      if (path) expect(existsSync(join(ROOT, path)), where).toBe(true);
      if (text.startsWith('curl ')) {
        const ran = await shell(`${text.replace('http://<instance>:4000', server.url)} -s`, server.url);
        expect(JSON.parse(ran.stdout), where).toMatchObject({ status: 'ok' });
      }
    }
  });

  it('runs the typed storefront client against the server, as graphql.md says to try it', async () => {
    const ran = await shell('npx tsx examples/storefront/client.ts http://127.0.0.1:4000', server.url, {
      timeout: 120_000,
    });
    expect(ran.code, ran.stderr).toBe(0);
  }, 120_000);
});

describe(`figures the docs state, measured on ${engineName}`, () => {
  const doc = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');
  const metrics = async () => (await fetch(`${server.url}/metrics`)).text();
  /** SQL statements an operation costs, the response cache's read of the listing version aside. */
  /** Statements a request costs, measured between two scrapes. */
  async function delta(query: string, variables: Record<string, unknown>): Promise<number> {
    const before = counter(await metrics(), 'db_queries_total');
    const { body } = await postQuery(server.url, query, variables);
    // The full page selects the private fields: without a key they are withheld (FORBIDDEN), the rest is there.
    const codes = (body.errors ?? []).map((e) => (e as { extensions?: { code?: string } }).extensions?.code);
    expect(
      codes.filter((code) => code !== 'FORBIDDEN'),
      query,
    ).toEqual([]);
    return counter(await metrics(), 'db_queries_total') - before;
  }
  /** SQL statements an operation's page costs, the response cache's read of the listing version aside. */
  async function statements(query: string, limit: number): Promise<number> {
    const slim = '{ packages(limit: 3, seed: 5) { results { id } } }';
    await delta(slim, {});
    // Each the least of three: a read of the version watch (every second) can fall into one.
    const least = async (measure: (i: number) => Promise<number>) =>
      Math.min(await measure(0), await measure(1), await measure(2));
    const versionRead = await least(() => delta(slim, {})); // a cache hit: the version read alone
    await delta(query, { limit, seed: 1 }); // the listing seen, its kept positions read
    return (await least((i) => delta(query, { limit, seed: 2 + i }))) - versionRead;
  }

  it('statements per page: one with every field or package fields only, two with part of the photographer', async () => {
    expect(await statements(print(FullPageDocument), 50)).toBe(1);
    expect(doc('docs/graphql.md')).toContain('Such a page of every field is one statement');
    expect(doc('docs/development.md')).toContain('a page with every field is one statement too');
    expect(
      await statements(
        'query ($limit: Int, $seed: Int) { packages(limit: $limit, seed: $seed) { results { id title price } } }',
        50,
      ),
    ).toBe(1);
    expect(
      await statements(
        'query ($limit: Int, $seed: Int) { packages(limit: $limit, seed: $seed) { results { id photographer { name } } } }',
        50,
      ),
    ).toBe(2);
    expect(doc('docs/graphql.md')).toContain(
      "(1 with every field selected or with package fields only, 2 with some of the photographer's fields",
    );
    const connections =
      'query ($limit: Int, $seed: Int) { packages(limit: $limit, seed: $seed) { results { id photographer { id packages(first: 6) { totalCount edges { node { title } } } } } } }';
    expect(await statements(connections, 100)).toBe(4);
    expect(doc('docs/graphql.md')).toContain("each photographer's `id` and first 6 packages is 4 statements");
  });

  it("operations.md's metrics table is what /metrics has on this engine", async () => {
    const exposed = exposedMetrics(await metrics());
    const section =
      readFileSync(join(ROOT, 'docs/operations.md'), 'utf8').split('## Metrics')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \|[^|]*\| ([^|]+) \|$/gm)];
    expect(rows.length).toBeGreaterThan(8);
    for (const [, names, where] of rows) {
      const expected =
        where?.startsWith('every engine') || where?.startsWith('with `REDIS_URL`')
          ? true
          : where?.startsWith('PostgreSQL only')
            ? onPostgres
            : undefined;
      expect(expected, where).toBeDefined();
      for (const name of (names as string).match(/[a-z_]+/g) ?? [])
        expect(exposed.has(name), `${name}: ${where}`).toBe(expected);
    }
    const listed = new Set(rows.flatMap(([, names]) => (names as string).match(/[a-z_]+/g) ?? []));
    const own = [...exposed].filter((name) => !/^(process|nodejs)_/.test(name));
    expect(own.filter((name) => !listed.has(name))).toEqual([]);
  });
});
