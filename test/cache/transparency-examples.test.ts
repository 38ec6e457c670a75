// Sequences the cache's property test (transparency.test.ts) found, kept as examples: each request answered with
// the cache on as the same server answers it with the cache off, by the rule of transparency-model.ts.
//
// `Accept: null` is not a missing Accept: the v2 door refuses it with 406, as Django REST Framework does, and
// yoga finds no type it may answer a GraphQL GET in. A cache that made the text of a request's part with
// `${accept}` gave both the same key, so that after one request without Accept, `Accept: null` got the kept 200.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { engineName } from '../helpers/database.js';
import { type Exchange, send } from '../helpers/http-server.js';
import { type Ask, difference } from './transparency-model.js';
import { transparencyServers } from './transparency-servers.js';

const { servers } = transparencyServers();

/** The request sent to B (the edge answers its hits) and to its twin with the cache off, and what is wrong. */
async function onBoth(ask: Omit<Ask, 'kind' | 'pair' | 'forwarded'>) {
  const headers: Record<string, string> = {};
  if (ask.accept !== undefined) headers.accept = ask.accept;
  const request = { method: ask.method, path: ask.path, headers };
  const on: Exchange = await send(servers.B.url, request);
  const off: Exchange = await send(servers.B0.url, request);
  const full: Ask = { kind: 'ask', pair: 'B', forwarded: 'none', ...ask };
  const sent = { ifNoneMatch: undefined, staleTag: false };
  return { on, off, wrong: difference(full, sent, on, off, { on: servers.B.url, off: servers.B0.url }) };
}

/** The request asked of a server with the cache on and of its twin without, each twice; their answers. */
async function twice(
  on: 'A' | 'B',
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
) {
  const answers: { on: Exchange; off: Exchange }[] = [];
  for (let round = 0; round < 2; round++) {
    answers.push({ on: await send(servers[on].url, request), off: await send(servers[`${on}0`].url, request) });
  }
  return answers;
}

/** A query no earlier run kept (Redis keeps answers across runs). */
const fresh = (fields: string) => `{ packages(limit: 2, seed: 33) { ${fields} } }\n# ${randomBytes(6).toString('hex')}`;

describe(`the response cache on requests the property test found, on ${engineName}`, () => {
  it('says Vary: Accept-Encoding only where the route would: not on a multipart answer, kept or not', async () => {
    const body = JSON.stringify({ query: fresh('count results { id }') });
    const request = {
      method: 'POST',
      path: '/graphql',
      headers: { accept: 'multipart/mixed', 'content-type': 'application/json' },
      body,
    };
    for (const { on, off } of await twice('B', request)) {
      expect(on.status).toBe(off.status);
      expect(on.headers['content-type']).toBe(off.headers['content-type']);
      expect(on.headers.vary).toBe(off.headers.vary);
    }
  });

  it('says Vary: Origin as this instance would, whichever instance kept the answer in Redis', async () => {
    const get = (query: string) => ({
      method: 'GET',
      path: `/graphql?${new URLSearchParams({ query })}`,
      headers: { accept: 'application/json' },
    });
    // Kept by A (any origin: no Vary: Origin), then found by B (a list of origins: Vary: Origin first), and the
    // other way round.
    for (const [first, second] of [
      ['A', 'B'],
      ['B', 'A'],
    ] as const) {
      const request = get(fresh('results { id title }'));
      await twice(first, request);
      // The first instance's write to Redis may still be on its way: asked until found there (a few rounds at most).
      let hits = 0;
      for (let round = 0; round < 5 && hits < 2; round++) {
        for (const { on, off } of await twice(second, request)) {
          if (on.headers['x-cache'] === 'hit') hits += 1;
          expect(on.headers.vary, `${first} kept, ${second} sent`).toBe(off.headers.vary);
        }
      }
      expect(hits).toBeGreaterThan(0);
    }
  });

  it('refuses a POST in a type yoga does not read, after the same body was kept as JSON', async () => {
    const body = JSON.stringify({ query: fresh('count') });
    const post = (type: string) => ({ method: 'POST', path: '/graphql', headers: { 'content-type': type }, body });
    expect((await twice('B', post('application/json'))).map(({ on }) => on.status)).toEqual([200, 200]);
    for (const { on, off } of await twice('B', post('application/graphql-response+json'))) {
      expect(off.status).toBe(415);
      expect(on.status).toBe(off.status);
      expect(on.headers['x-cache']).toBeUndefined();
    }
  });

  it('answers a v2 page asked with `Accept: null` after the same page without Accept as it would without the cache', async () => {
    const path = '/v2/local-package-list/?limit=1&seed=901';
    const plain = await onBoth({ method: 'GET', path });
    expect([plain.on.status, plain.off.status, plain.wrong]).toEqual([200, 200, null]);
    // Kept now, and answered at the Node edge the second time, as the server does.
    const edge = servers.B.edgeAnswered();
    const hit = await onBoth({ method: 'GET', path });
    expect([hit.on.headers['x-cache'], hit.wrong]).toEqual(['hit', null]);
    expect(servers.B.edgeAnswered()).toBe(edge + 1);

    const spelled = await onBoth({ method: 'GET', path, accept: 'null' });
    expect(spelled.off.status).toBe(406);
    expect(spelled.wrong).toBeNull();
    expect(spelled.on.status).toBe(406);
  });

  it('answers a GraphQL GET by persisted-query hash with `Accept: null` after the same without Accept as it would without the cache', async () => {
    // A document of this run alone: Redis keeps registrations across runs.
    const query = `{ packages(limit: 1, seed: 901) { count results { id title } } }\n# ${randomBytes(6).toString('hex')}`;
    const extensions = JSON.stringify({
      persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') },
    });
    const registration = await onBoth({
      method: 'GET',
      path: `/graphql?${new URLSearchParams({ query, extensions })}`,
    });
    expect([registration.on.status, registration.off.status, registration.wrong]).toEqual([200, 200, null]);

    const path = `/graphql?${new URLSearchParams({ extensions })}`;
    const plain = await onBoth({ method: 'GET', path });
    expect([plain.on.status, plain.wrong]).toEqual([200, null]);
    const hit = await onBoth({ method: 'GET', path });
    expect([hit.on.headers['x-cache'], hit.wrong]).toEqual(['hit', null]);

    const spelled = await onBoth({ method: 'GET', path, accept: 'null' });
    expect(spelled.off.status).toBe(406);
    expect(spelled.wrong).toBeNull();
    expect(spelled.on.status).toBe(406);
  });
});
