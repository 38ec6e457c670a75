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

describe(`the response cache on requests the property test found, on ${engineName}`, () => {
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
