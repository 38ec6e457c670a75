// Rotating an API key with an overlap and no restart (docs/operations.md, "Rotating an API key"): keys read from
// API_KEYS_FILE and V2_API_KEYS_FILE, read again on SIGHUP and when a file changes. One real server process, never
// restarted: key A works; A and B under one name, both work at both doors; A removed, A refused (401) and B
// served, a page kept for A's scopes included; a bad file keeps the keys in use and logs one error line per file. A
// bad file at start stops the start as a bad variable does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey } from '../../src/api-keys.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { type TempDir, tempDir } from '../helpers/temp-dir.js';
import { copyOfTemplate } from '../helpers/templates.js';

const A = newApiKey();
const B = newApiKey();
const QUERY = '{ packages(limit: 2, seed: 5) { results { id photographerEmail } } }';

let dir: TempDir;
let server: ServerProcess;
let graphqlFile: string;
let v2File: string;

/** Writes both files: the GraphQL one with the private scope, the v2 one without scopes. */
function writeKeys(...keys: { hash: string }[]): void {
  writeFileSync(graphqlFile, `# storefront, rotated\n${keys.map((k) => `storefront:private:${k.hash}`).join('\n')}\n`);
  writeFileSync(v2File, keys.map((k) => `storefront:${k.hash}`).join(','));
}

const bearer = (key?: string): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

/** GraphQL's status and the error codes of its answer. */
async function graphql(key?: string): Promise<{ status: number; codes: string[] }> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...bearer(key) },
    body: JSON.stringify({ query: QUERY }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: response.status, codes: (body.errors ?? []).map((e) => e.extensions?.code ?? '?') };
}

const v2 = async (key?: string): Promise<number> =>
  (await fetch(`${server.url}/v2/local-package-list/?limit=2&seed=5`, { headers: bearer(key) })).status;

/** Lines of the server's log whose message contains `text`. */
const lines = (text: string): { level: string; msg: string; reason?: string }[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string; reason?: string })
    .filter((line) => line.msg.includes(text));

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}:\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends SIGHUP and waits for each file's reload line (or, when its change was seen first, its SIGHUP line). */
async function sighup(): Promise<void> {
  const before = lines('API_KEYS_FILE').length;
  process.kill(server.pid, 'SIGHUP');
  // Each file is reported once for a new text, and once more (as last read) when the watch saw it first.
  await until(() => lines('API_KEYS_FILE').filter((l) => l.reason === 'SIGHUP').length >= 2 + countSighups, 'SIGHUP');
  countSighups += 2;
  expect(lines('API_KEYS_FILE').length).toBeGreaterThan(before);
}
let countSighups = 0;

beforeAll(async () => {
  dir = tempDir('key-rotation-');
  graphqlFile = join(dir.path, 'api-keys');
  v2File = join(dir.path, 'v2-api-keys');
  writeKeys(A);
  server = await startServer({
    DATA_DIR: copyOfTemplate(),
    SEED_PACKAGES: '20',
    RATE_LIMIT: '0',
    API_KEYS_FILE: graphqlFile,
    V2_API_KEYS_FILE: v2File,
  });
});
afterAll(async () => {
  await server?.stop();
  dir?.remove();
});

describe('rotating an API key without a restart', () => {
  it('A works; A and B under one name both work; A removed is refused, B works; the same process throughout', async () => {
    const pid = server.pid;
    expect(await graphql(A.key)).toEqual({ status: 200, codes: [] });
    expect(await graphql()).toEqual({ status: 200, codes: ['FORBIDDEN'] }); // no key: private fields withheld
    expect(await graphql(B.key)).toEqual({ status: 401, codes: ['UNAUTHENTICATED'] });
    expect([await v2(A.key), await v2(B.key), await v2()]).toEqual([200, 401, 401]);

    writeKeys(A, B);
    await sighup();
    expect(lines('keys reloaded: storefront (2 keys)')).toHaveLength(2);
    expect(await graphql(A.key)).toEqual({ status: 200, codes: [] });
    expect(await graphql(B.key)).toEqual({ status: 200, codes: [] });
    expect([await v2(A.key), await v2(B.key)]).toEqual([200, 200]);
    // The request log names either key by its name, never the key: one client, before and after.
    const requests = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"') && line.includes('"status":200'));
    expect(requests.filter((line) => line.includes('"key":"storefront"')).length).toBeGreaterThanOrEqual(4);
    expect(server.output()).not.toContain(A.key);
    expect(server.output()).not.toContain(B.key);

    writeKeys(B);
    await sighup();
    expect(lines('keys reloaded: storefront').filter((l) => !l.msg.includes('2 keys'))).toHaveLength(2);
    // The same request again: an answer kept for the private scope is not given to a key that is gone.
    expect(await graphql(A.key)).toEqual({ status: 401, codes: ['UNAUTHENTICATED'] });
    expect(await graphql(B.key)).toEqual({ status: 200, codes: [] });
    expect([await v2(A.key), await v2(B.key)]).toEqual([401, 200]);
    expect(server.pid).toBe(pid);
    expect(lines('stopping')).toEqual([]);
  });

  it('a bad file keeps the keys in use and logs one error line per file', async () => {
    writeFileSync(graphqlFile, `storefront:private:${B.hash}\nstorefront:root:${A.hash}\n`);
    writeFileSync(v2File, 'storefront');
    await sighup();
    const errors = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":"error"'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain(`API_KEYS_FILE=${graphqlFile} line 2 (storefront): unknown scope \\"root\\"`);
    expect(errors[1]).toContain(`V2_API_KEYS_FILE=${v2File} line 1 must read name:sha256-hex`);
    expect(errors.join('\n')).toContain('the keys read before stay in use');
    expect(await graphql(B.key)).toEqual({ status: 200, codes: [] });
    expect(await v2(B.key)).toBe(200);
    expect(await graphql(A.key)).toEqual({ status: 401, codes: ['UNAUTHENTICATED'] });
  });

  it('takes a changed file without a signal, within seconds', async () => {
    const before = lines('keys reloaded').length;
    writeKeys(A);
    await until(() => lines('keys reloaded').length >= before + 2, 'the change to be seen');
    expect(
      lines('keys reloaded')
        .slice(-2)
        .map((l) => l.reason),
    ).toEqual(['the file changed', 'the file changed']);
    expect(await graphql(A.key)).toEqual({ status: 200, codes: [] });
    expect(await graphql(B.key)).toEqual({ status: 401, codes: ['UNAUTHENTICATED'] });
  });
});

describe('a bad keys file at start', () => {
  it.each([
    ['a bad entry', 'storefront:private:xyz', 'API_KEYS_FILE="<file>" line 1 (storefront): the hash must be 64'],
    ['no entry', '# nothing yet\n', 'API_KEYS_FILE="<file>" holds no entry'],
    ['two scopes for a name', `a:private:${A.hash}\na::${B.hash}`, 'line 2: the name a has other scopes in line 1'],
  ])('stops the start in one line, as a bad variable does: %s', async (_, text, message) => {
    const file = join(dir.path, 'bad-at-start');
    writeFileSync(file, text);
    const { code, stdout, stderr } = await runScript('src/server.ts', { DATA_DIR: 'memory://', API_KEYS_FILE: file });
    expect(code).toBe(1);
    const output = `${stdout}${stderr}`.trim().split('\n');
    expect(output).toHaveLength(1);
    expect((JSON.parse(output[0] as string) as { msg: string }).msg).toContain(message.replace('<file>', file));
  });

  it('refuses a missing file, and a variable set beside its file', async () => {
    const missing = await runScript('src/server.ts', { DATA_DIR: 'memory://', V2_API_KEYS_FILE: '/nonexistent/keys' });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('V2_API_KEYS_FILE=\\"/nonexistent/keys\\" cannot be read (ENOENT)');
    const file = join(dir.path, 'good');
    writeFileSync(file, `a::${A.hash}`);
    const both = await runScript('src/server.ts', {
      DATA_DIR: 'memory://',
      API_KEYS: `b::${B.hash}`,
      API_KEYS_FILE: file,
    });
    expect(both.code).toBe(1);
    expect(both.stdout).toContain('API_KEYS and API_KEYS_FILE are both set; set one of them');
  });
});
