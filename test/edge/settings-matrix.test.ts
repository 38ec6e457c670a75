// The Node edge answers what yoga alone would, under every setting that changes a request (src/request-settings.ts),
// not one profile: for each profile of settings (settings-profiles.ts), two servers on one database, one answering
// at the edge and one leaving every request to yoga (test/helpers/edge-pair.ts), are asked the same requests in the
// same order (settings-requests.ts) and must give the same status, headers (but Date, X-Request-Id, Connection and
// Keep-Alive) and bytes. Every setting marked 'request' must be set off its default by a profile: a new one fails
// here until it is placed. A profile's differences are all listed at once, each with the request and both answers.
// With Redis, each side has a Redis database of its own (flushed first, never another's), as two instances of
// different fleets would: neither finds what the other kept or counted.
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { listeningBase } from '../../src/http/public-base.js';
import { type EnvironmentVariable, requestSettings, requestVariables } from '../../src/request-settings.js';
import { engineName, onPostgres } from '../helpers/database.js';
import { ask, comparable, described } from '../helpers/edge-compare.js';
import { edgeAndApp } from '../helpers/edge-pair.js';
import type { Exchange, ServedApp } from '../helpers/http-server.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { tempDir } from '../helpers/temp-dir.js';
import { configOf, manifestText, matrix, type Profile, profiles } from './settings-profiles.js';
import { LAST_ETAG, requests, type Step } from './settings-requests.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** This file's Redis databases, one a side; other ones on PostgreSQL, so that both engines' runs may go at once. */
const REDIS_DATABASES = onPostgres ? [12, 13] : [10, 11];

const dir = tempDir('settings-matrix-');
const manifest = join(dir.path, 'persisted-documents.json');
const PROFILES = profiles({ manifest, redis: REDIS_URL });
const { pair } = edgeAndApp({ count: 30, seed: 47, publicUrl: 'http://listing.example' });

beforeAll(() => writeFileSync(manifest, manifestText()));
afterAll(() => dir.remove());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Redis database for each side, emptied: what a run before left there is not found. */
async function redisOfEach(url: string | undefined) {
  if (!url) return {};
  const [edge, app] = REDIS_DATABASES.map((index) => {
    const each = new URL(url);
    each.pathname = `/${index}`;
    return each.toString();
  }) as [string, string];
  for (const each of [edge, app]) {
    const client = new Redis(each);
    await client.flushdb();
    await client.quit();
  }
  return { edge: { redisUrl: edge }, app: { redisUrl: app } };
}

/** Until the server reports Redis connected (before, it answers from memory alone). */
async function redisReady(server: ServedApp) {
  for (let i = 0; i < 100; i++) {
    const health = await ask(server, { method: 'GET', path: '/healthz' });
    if (JSON.parse(health.body.toString()).redis === 'ok') return;
    await sleep(50);
  }
  throw new Error('Redis not connected after 5 s');
}

/** A request whose answer is an event stream: its head, then the stream is closed (it would never end). */
function streamHead(server: ServedApp, step: Step): Promise<Exchange> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: step.method ?? 'POST', path: step.path ?? '/graphql', headers: step.headers },
      (response) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const exchange = { status: response.statusCode ?? 0, headers, body: Buffer.alloc(0) };
        if (headers['content-type']?.startsWith('text/event-stream')) {
          request.destroy();
          resolve(exchange);
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ ...exchange, body: Buffer.concat(chunks) }));
      },
    );
    request.on('error', reject);
    if (step.body !== undefined) request.write(step.body);
    request.end();
  });
}

/** Asks while the client holds `count` idle connections of its own to the server. */
async function holding<T>(server: ServedApp, count: number, work: () => Promise<T>): Promise<T> {
  const { port } = new URL(server.url);
  await sleep(100); // the connections of the requests before are closed
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
          socket.on('error', reject);
        }),
    ),
  );
  await sleep(100); // the server has counted them
  try {
    return await work();
  } finally {
    for (const socket of sockets) socket.destroy();
    await sleep(100);
  }
}

/** One ask of one server, the last ETag it gave standing in for LAST_ETAG. */
async function askOnce(server: ServedApp, step: Step, lastEtag: string | undefined): Promise<Exchange> {
  const headers = { ...step.headers };
  if (headers['if-none-match'] === LAST_ETAG) headers['if-none-match'] = lastEtag ?? '"none yet"';
  const request = { ...step, headers };
  const answer = () => (step.stream ? streamHead(server, request) : ask(server, request));
  const timed = Promise.race([
    step.holding ? holding(server, step.holding, answer) : answer(),
    sleep(10_000).then(() => {
      throw new Error(`no answer in 10 s to ${described(step)}`);
    }),
  ]);
  return timed;
}

/** What compares of an answer: a page drawn from a pool of more than one seed, by its shape. */
function compared(step: Step, exchange: Exchange, config: Config) {
  if (!step.drawn || config.seedPool === 1) return comparable(exchange);
  const { 'x-cache': _x, age: _a, ...headers } = comparable(exchange, true).headers;
  return { ...comparable(exchange, true), headers };
}

const shown = (body: string) => (body.length > 400 ? `${body.slice(0, 400)}…` : body);

/** The difference between the two answers, in a line a reader can act on; null when there is none. */
function difference(step: Step, round: number, edge: ReturnType<typeof compared>, app: typeof edge): string | null {
  if (isDeepStrictEqual(edge, app)) return null;
  const { host: _h, 'x-forwarded-for': _f, ...headers } = step.headers ?? {};
  const what = described({ ...step, headers });
  const parts: string[] = [];
  if (edge.status !== app.status) parts.push(`status: edge ${edge.status}, yoga ${app.status}`);
  for (const name of new Set([...Object.keys(edge.headers), ...Object.keys(app.headers)])) {
    const [a, b] = [(edge.headers as Record<string, string>)[name], (app.headers as Record<string, string>)[name]];
    if (a !== b) parts.push(`${name}: edge ${JSON.stringify(a)}, yoga ${JSON.stringify(b)}`);
  }
  if (edge.body !== app.body) {
    const text = (body: string) => shown(Buffer.from(body, 'base64').toString('utf8'));
    parts.push(`body: edge ${JSON.stringify(text(edge.body))}, yoga ${JSON.stringify(text(app.body))}`);
  }
  return `${what} (ask ${round + 1} of ${step.times}): ${parts.join('; ')}`;
}

interface Run {
  /** Every difference, in the order found. */
  found: string[];
  /** The edge's statuses of the tagged steps. */
  statuses: Partial<Record<NonNullable<Step['tag']>, number[]>>;
  /** Requests each server answered at the edge. */
  atTheEdge: { edge: number; app: number };
  /** Spans exported (tracing on). */
  spans: number;
}

/** Runs the requests under the profile. */
async function run(profile: Profile): Promise<Run> {
  const config = configOf(profile);
  let receiver: OtlpReceiver | undefined;
  const env = { ...process.env };
  if (config.tracing.endpoint) receiver = await startOtlpReceiver(); // before the apps: their phases are traced
  const both = await pair(config, {
    publicUrl: config.publicUrl,
    listening: listeningBase(config.host, config.port),
    maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    ...(await redisOfEach(config.redisUrl)),
  });
  try {
    if (config.redisUrl) await Promise.all([redisReady(both.edge), redisReady(both.app)]);
    const found: string[] = [];
    const statuses: Run['statuses'] = {};
    const etags: { edge?: string; app?: string } = {};
    for (const step of requests()) {
      for (let round = 0; round < step.times; round++) {
        const edge = await askOnce(both.edge, step, etags.edge);
        const app = await askOnce(both.app, step, etags.app);
        etags.edge = edge.headers.etag ?? etags.edge;
        etags.app = app.headers.etag ?? etags.app;
        const differs = difference(step, round, compared(step, edge, config), compared(step, app, config));
        if (differs) found.push(differs);
        if (step.tag) statuses[step.tag] = [...(statuses[step.tag] ?? []), edge.status];
      }
    }
    const spans = receiver ? (await receiver.waitFor((all) => all.length > 0, 5000)).length : 0;
    return { found, statuses, atTheEdge: { edge: both.edge.edgeAnswered(), app: both.app.edgeAnswered() }, spans };
  } finally {
    await both.close();
    await receiver?.close();
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_BSP_SCHEDULE_DELAY']) {
      if (env[name] === undefined) delete process.env[name];
      else process.env[name] = env[name];
    }
  }
}

describe(`the Node edge under every setting that changes a request, on ${engineName}`, () => {
  it('has every setting that changes a request set off its default by a profile, and only those', () => {
    const placed = matrix(PROFILES);
    const unplaced = requestVariables().filter((name) => placed[name].length === 0);
    expect(unplaced, 'settings that change a request and no profile sets (settings-profiles.ts)').toEqual([]);
    for (const profile of PROFILES) {
      expect(() => configOf(profile), profile.name).not.toThrow();
      const others = (Object.keys(profile.env) as EnvironmentVariable[]).filter(
        (name) => requestSettings[name] !== 'request' || !placed[name].includes(profile.name),
      );
      expect(others, `${profile.name}: variables that change no request, or are at their default`).toEqual([]);
    }
  });

  for (const profile of PROFILES) {
    it(`answers as yoga does: ${profile.name}`, async () => {
      const config = configOf(profile);
      const { found, statuses, atTheEdge, spans } = await run(profile);
      expect(found).toEqual([]);
      // The comparison was of two doors: the edge answered many, its twin none.
      expect(atTheEdge.edge).toBeGreaterThan(20);
      expect(atTheEdge.app).toBe(0);
      // The profile's bounds were met where it sets them.
      if (config.trustProxy && config.rateLimit.requests === 4)
        expect(statuses.burst).toEqual([200, 200, 200, 200, 429, 429]);
      if (config.maxConnectionsPerAddress === 2) expect(statuses.crowd).toEqual([429]);
      if (config.sseMaxConnections === 0) expect(statuses.stream).toEqual([503]);
      if (config.apq.registrationsPerMinute === 2) expect(statuses['third registration']).toEqual([429]);
      // Tracing was on where the profile says so: the requests were exported.
      if (config.tracing.endpoint) expect(spans).toBeGreaterThan(0);
    }, 120_000);
  }
});
