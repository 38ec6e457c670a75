// What a server on the embedded database takes from an import tool, and what it does not: each line the tool
// sends and the whole upload are bounded and refused as they come, while health checks and pages go on answering;
// the spool lives in the data directory and goes whatever the outcome (a refusal, a tool that leaves, SIGTERM),
// and at the next start after a kill; a tool that leaves is told apart from a failing database; SIGTERM during an
// upload stops the server within SHUTDOWN_TIMEOUT. Real processes, the server's own socket; the rogue uploads are
// raw HTTP over it, as anything that can reach the socket could send.
import { existsSync, writeFileSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { onPostgres } from '../helpers/database.js';
import { runScript, type ServerProcess, startServer } from '../helpers/server-process.js';
import { type TempDir, tempDir } from '../helpers/temp-dir.js';
import { copyOfTemplate } from '../helpers/templates.js';

const COUNT = 20;
const PAGE = `/v2/local-package-list/?limit=${COUNT}&seed=5`;
const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const STOPPING = 'the server is stopping: rolled back, nothing of this import was written';

let work: TempDir;
let dataDir: string;
let server: ServerProcess | undefined;
const uploads: ClientRequest[] = [];
const env = (more: Record<string, string> = {}) => ({
  DATA_DIR: dataDir,
  SEED_PACKAGES: String(COUNT),
  RATE_LIMIT: '0',
  ...more,
});
const spool = () => join(dataDir, 'import.spool');

beforeEach(() => {
  work = tempDir('live-bounds-');
  dataDir = copyOfTemplate();
});
afterEach(async () => {
  for (const upload of uploads.splice(0)) upload.destroy();
  if (server) {
    const killer = setTimeout(() => process.kill(server?.pid as number, 'SIGKILL'), 10_000);
    await server.stop();
    clearTimeout(killer);
  }
  server = undefined;
  work.remove();
});

/** Resolves once `check` holds; rejects after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

/** Resolves once the server has logged `text`. */
const logged = (text: string) => until(() => server?.output().includes(text) ?? false, 10_000, `the log: ${text}`);

interface Answer {
  status: number;
  events: Record<string, unknown>[];
  at: number;
}

/** A raw upload to the server's import socket: what is sent, and the server's answer when it comes. */
function upload(label: string) {
  const sent = { bytes: 0 };
  const client = request({
    socketPath: join(dataDir, 'import.sock'),
    method: 'POST',
    path: `/import?label=${label}`,
    agent: false,
  });
  uploads.push(client);
  let answered: Answer | undefined;
  const answer = new Promise<Answer>((resolve) => {
    client.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      const done = () => {
        answered ??= {
          status: response.statusCode ?? 0,
          events: body
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line)),
          at: performance.now(),
        };
        resolve(answered);
      };
      response.on('end', done);
      response.on('error', done); // the server may cut the connection once its answer is out
      response.on('close', done);
    });
  });
  client.on('error', () => {}); // a refused upload's connection goes
  /** Sends `chunk` over and over, as fast as the socket takes it, until answered or `cap` bytes are sent. */
  const flood = async (chunk: Buffer, cap: number) => {
    while (!answered && !client.destroyed && sent.bytes < cap) {
      sent.bytes += chunk.length;
      if (!client.write(chunk)) await new Promise((resolve) => client.once('drain', resolve));
    }
  };
  /** Sends `chunk` every `ms`, until answered or the connection is gone. */
  const trickle = async (chunk: Buffer, ms: number) => {
    while (!answered && !client.destroyed) {
      sent.bytes += chunk.length;
      client.write(chunk);
      await sleep(ms);
    }
  };
  return { client, answer, sent, flood, trickle };
}

/** GET /healthz and a page in turn until stopped: each status and time. */
function probe(url: string) {
  const seen: { path: string; status: number; ms: number; at: number }[] = [];
  let on = true;
  const running = (async () => {
    while (on) {
      for (const path of ['/healthz', PAGE]) {
        const started = performance.now();
        const response = await fetch(`${url}${path}`);
        await response.arrayBuffer();
        const at = performance.now();
        seen.push({ path, status: response.status, ms: at - started, at });
      }
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      on = false;
      await running;
      return seen;
    },
  };
}

/** A line of the kind the tool sends: one record as it read it. */
const recordLine = Buffer.from(
  `${JSON.stringify({ where: 'dump.json', path: '[0]', value: [...generatePackages({ count: 1 })][0] })}\n`,
);

describe.skipIf(onPostgres)('what a server on the embedded database takes from an import tool', () => {
  it('refuses a line past IMPORT_MAX_LINE_BYTES as it comes, naming it, while /healthz and pages answer', async () => {
    server = await startServer(env());
    const url = server.url;
    const rogue = upload('rogue');
    const health = probe(url);
    const began = performance.now();
    rogue.client.write('{"where": "dump.json", "path": "[0]", "value": "');
    // 64 KiB every 4 ms (about 16 MiB/s): the line passes its bound after a second or more, however fast the
    // machine, so that the probes have an upload in flight to answer beside.
    void rogue.trickle(Buffer.alloc(64 * 1024, 'x'), 4);
    // The line passes its bound (16 MiB, and 64 KiB for the record's place) once this much is sent.
    const bound = 16 * MiB + 64 * 1024;
    await until(() => rogue.sent.bytes > bound, 20_000, 'the bound sent');
    const passed = performance.now();
    const answer = await Promise.race([rogue.answer, sleep(10_000).then(() => null)]);
    const seen = await health.stop();
    expect(answer, 'no answer within 10 s of the line passing its bound').not.toBeNull();
    expect(answer?.status).toBe(413);
    expect(answer?.events).toEqual([
      { error: 'the upload line 1: longer than 16,777,216 bytes (IMPORT_MAX_LINE_BYTES), refused' },
    ]);
    // Refused at the bound: within a second of it, and with what the socket buffers beyond it.
    expect((answer?.at ?? 0) - passed).toBeLessThan(1000);
    expect(rogue.sent.bytes).toBeLessThan(bound + 8 * MiB);
    const duringUpload = seen.filter((each) => each.at > began && each.at < (answer?.at ?? 0));
    expect(new Set(duringUpload.map((each) => each.path))).toEqual(new Set(['/healthz', PAGE]));
    for (const each of seen) {
      expect(each.status, each.path).toBe(200);
      expect(each.ms, each.path).toBeLessThan(1000);
    }
    await logged('import of rogue: the upload line 1: longer than');
    expect(existsSync(spool())).toBe(false);
    // The server goes on taking imports.
    const good = upload('good');
    good.client.end(recordLine);
    expect((await good.answer).events.at(-1)).toMatchObject({ report: { status: 'imported' } });
  }, 120_000);

  it('refuses an upload past IMPORT_MAX_SPOOL_BYTES as it comes, and removes the spool', async () => {
    server = await startServer(env({ IMPORT_MAX_SPOOL_BYTES: String(4 * MiB) }));
    const large = upload('large');
    void large.flood(recordLine, 64 * MiB);
    const answer = await Promise.race([large.answer, sleep(20_000).then(() => null)]);
    expect(answer?.status).toBe(413);
    expect(answer?.events).toEqual([
      {
        error:
          'the upload is larger than 4,194,304 bytes (IMPORT_MAX_SPOOL_BYTES), refused: import it with the server stopped, or raise the bound',
      },
    ]);
    expect(large.sent.bytes).toBeLessThan(12 * MiB);
    expect(existsSync(spool())).toBe(false);
    await logged('import of large: the upload is larger than 4,194,304 bytes');
  }, 90_000);

  it('says a tool that leaves left: mid-upload, and when it refuses a line of its own source', async () => {
    server = await startServer(env({ IMPORT_MAX_LINE_BYTES: String(64 * 1024) }));
    const leaving = upload('leaving');
    void leaving.flood(recordLine, 2 * MiB);
    await until(() => leaving.sent.bytes >= 2 * MiB, 20_000, 'the upload sent');
    await sleep(200);
    leaving.client.destroy();
    await logged('import of leaving: ');
    expect(server.output()).toContain('import of leaving: the import tool left: rolled back');
    expect(server.output()).not.toContain('database error');
    await until(() => !existsSync(spool()), 5000, 'the spool removed');

    // The tool reads its source itself, bounded alike: it names the line, and leaves the server's import.
    const records = [...generatePackages({ count: 3 })];
    const file = join(work.path, 'long.jsonl');
    const long = { ...records[1], padding: 'x'.repeat(100_000) };
    writeFileSync(file, [records[0], long, records[2]].map((r) => JSON.stringify(r)).join('\n'));
    const before = await (await fetch(`${server.url}${PAGE}`)).text();
    const tool = await runScript('src/cli/import.ts', env({ IMPORT_MAX_LINE_BYTES: String(64 * 1024) }), [file]);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain(`importing through the server`);
    expect(tool.stderr).toContain(`error: ${file} line 2: longer than 65,536 bytes (IMPORT_MAX_LINE_BYTES), refused`);
    expect(await (await fetch(`${server.url}${PAGE}`)).text()).toBe(before);
    expect(server.output()).not.toContain('database error');
  }, 90_000);

  it('stops within SHUTDOWN_TIMEOUT on SIGTERM during an upload, tells the tool, and leaves no spool', async () => {
    server = await startServer(env({ SHUTDOWN_TIMEOUT: '10' }));
    const slow = upload('slow');
    void slow.trickle(recordLine, 20);
    await sleep(500);
    const signalled = performance.now();
    const code = await Promise.race([server.stop('SIGTERM'), sleep(30_000).then(() => 'still running')]);
    const seconds = (performance.now() - signalled) / 1000;
    // Exit code 0 says the drain ended before SHUTDOWN_TIMEOUT cut anything off: the upload, which would trickle on
    // for minutes, was ended at once, not waited for; otherwise the drain would have been forced at 10 s, exit 1. How
    // long the rollback and the database's close take depends on the machine's load, so the time is only reported.
    expect(code, `stopped after ${seconds.toFixed(1)} s`).toBe(0);
    expect(server.output()).not.toContain('(SHUTDOWN_TIMEOUT) were cut off');
    server = undefined;
    expect((await slow.answer).events).toEqual([{ error: STOPPING }]);
    expect(existsSync(spool())).toBe(false);
  }, 60_000);

  it('keeps its spool in the data directory, and removes one a killed server left at the next start', async () => {
    server = await startServer(env());
    const slow = upload('slow');
    void slow.trickle(recordLine, 20);
    await until(() => existsSync(spool()), 10_000, 'a spool in the data directory');
    await server.stop('SIGKILL');
    server = undefined;
    expect(existsSync(spool())).toBe(true);
    server = await startServer(env());
    expect(existsSync(spool())).toBe(false);
  }, 60_000);
});
