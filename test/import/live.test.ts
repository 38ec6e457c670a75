// `npm run import` while `npm start` serves the embedded database (which the server holds): the tool hands its
// records to the running server, which imports them. Real processes: the compiled server and the compiled tool.
// Clients reading meanwhile get every page of the old listing or of the new one, whole; `listingChanged` tells
// the change; a rejected source changes nothing; a server stopped in the middle of an import rolls it back and
// says so; a server killed outright leaves a socket the tool sees through, importing on its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { onPostgres } from '../helpers/database.js';
import { changes, subscribe } from '../helpers/event-stream.js';
import { runScript, type ServerProcess, spawnScript, startServer } from '../helpers/server-process.js';
import { type TempDir, tempDir } from '../helpers/temp-dir.js';
import { copyOfTemplate } from '../helpers/templates.js';

const COUNT = 60;
const MARK = 'Imported ';
const PAGE = `/v2/local-package-list/?limit=${COUNT}&seed=5`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let work: TempDir;
let dataDir: string;
let server: ServerProcess | undefined;
const env = () => ({ DATA_DIR: dataDir, SEED_PACKAGES: String(COUNT), RATE_LIMIT: '0' });

beforeEach(() => {
  work = tempDir('live-import-');
  dataDir = copyOfTemplate(); // migrated already: a start only loads the demo packages
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  work.remove();
});

/** The demo packages the server was seeded with (the generator's default seed), retitled, as an import file. */
function importFile(
  name: string,
  change: (record: Record<string, unknown>, i: number) => Record<string, unknown>,
  count = COUNT,
) {
  const records = [...generatePackages({ count })].map((r, i) => change({ ...r, title: `${MARK}${r.title}` }, i));
  const file = join(work.path, name);
  writeFileSync(file, JSON.stringify(records));
  return file;
}

async function titles(url: string): Promise<string[]> {
  const response = await fetch(`${url}${PAGE}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: { title: string }[] }).results.map((r) => r.title);
}

describe.skipIf(onPostgres)('imports while the server on the embedded database serves', () => {
  it('hands the records to the server: readers see the old listing or the new one whole, and are told', async () => {
    server = await startServer(env());
    const url = server.url;
    const subscriber = await subscribe(url);
    await subscriber.waitFor('heartbeat', 2000);
    await sleep(1200); // the version watch has read the version it will tell the change from
    const pages: string[][] = [];
    let reading = true;
    const readers = [0, 1].map(async () => {
      while (reading) pages.push(await titles(url));
    });
    const result = await runScript('src/cli/import.ts', env(), [importFile('new.json', (r) => r)]);
    await sleep(300);
    reading = false;
    await Promise.all(readers);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`importing through the server running on ${env().DATA_DIR}`);
    expect(result.stdout).toContain(`${COUNT} records: 0 created, ${COUNT} updated, 0 unchanged, 0 rejected (imported`);
    for (const page of pages) {
      const imported = page.filter((title) => title.startsWith(MARK)).length;
      expect([0, COUNT], 'a page mixed the two listings').toContain(imported);
    }
    expect(pages.some((page) => !page[0]?.startsWith(MARK))).toBe(true);
    expect((await titles(url)).every((title) => title.startsWith(MARK))).toBe(true);
    await subscriber.waitFor('next', 3000);
    expect(changes(subscriber).at(-1)?.count).toBe(COUNT);
    subscriber.close();
    expect(server.output()).toContain('import of');
  }, 90_000);

  it('a rejected source changes nothing, and says why as an import of its own would', async () => {
    server = await startServer(env());
    const before = await titles(server.url);
    const file = importFile('bad.json', (r, i) => (i === 7 ? { ...r, price: 'free' } : r));
    const result = await runScript('src/cli/import.ts', env(), [file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.json\[7\]|results\[7\]|\[7\]/);
    expect(result.stderr).toContain('rejected, nothing from it was written');
    expect(await titles(server.url)).toEqual(before);
  }, 90_000);

  it('a server stopped during an import rolls it back and tells the tool; a killed one is seen through', async () => {
    server = await startServer(env());
    const before = await titles(server.url);
    // Large enough to be stopped in the middle of its writing: the seeded packages and 1,440 more.
    const tool = spawnScript('src/cli/import.ts', env(), [importFile('new.json', (r) => r, 1500)]);
    while (!server.output().includes('taken from the import tool')) await sleep(10);
    expect(await server.stop('SIGTERM')).toBe(0);
    const stopped = await tool.exited;
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/the server is stopping: rolled back|the server ended the import/);
    server = await startServer(env());
    expect(await titles(server.url)).toEqual(before);
    // Killed outright: its socket file stays behind, and refuses; the tool opens the database itself.
    await server.stop('SIGKILL');
    server = undefined;
    const alone = await runScript('src/cli/import.ts', env(), [importFile('again.json', (r) => r)]);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).not.toContain('importing through the server');
    server = await startServer(env());
    expect((await titles(server.url)).every((title) => title.startsWith(MARK))).toBe(true);
  }, 120_000);
});
