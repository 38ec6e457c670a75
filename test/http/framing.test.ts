// Valid HTTP/1.1 on every path (RFC 9112): answers read off a raw socket and parsed strictly by this test, not by
// a lenient client. For every Accept the GraphQL door serves, on GET and POST, first (made) and again (kept), and
// for the v2 door: one status line, well-formed header lines, never Transfer-Encoding beside Content-Length, at
// most one Content-Length, and a body framed exactly as the head says (chunks that add up, or the declared length).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createListingTestDatabase, engineName, type TestDatabase } from '../helpers/database.js';
import { LISTING_CHANGED } from '../helpers/event-stream.js';
import { type ServedApp, serveApp } from '../helpers/http-server.js';

let db: TestDatabase;
let served: ServedApp;
beforeAll(async () => {
  db = await createListingTestDatabase(20);
  served = await serveApp(db, { rateLimit: { requests: 0, windowMs: 60_000 } });
});
afterAll(async () => {
  await served?.close();
  await db?.destroy();
});

interface Parsed {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The answer's head and body, or throws naming the first rule broken. */
function parseStrictly(bytes: Buffer, method: string, stream: boolean): Parsed {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error('no end of head');
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.1 ([1-5]\d\d) [^\r\n]*$/.exec(statusLine);
  if (!status) throw new Error(`status line: ${JSON.stringify(statusLine)}`);
  const headers: [string, string][] = lines.map((line) => {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name)) throw new Error(`header line: ${JSON.stringify(line)}`);
    return [name.toLowerCase(), line.slice(colon + 1).trim()];
  });
  const all = (name: string) => headers.filter(([n]) => n === name).map(([, v]) => v);
  const lengths = all('content-length');
  const codings = all('transfer-encoding');
  if (lengths.length > 0 && codings.length > 0) throw new Error('Transfer-Encoding and Content-Length together');
  if (lengths.length > 1) throw new Error(`${lengths.length} Content-Length headers`);
  if (lengths.some((length) => !/^\d+$/.test(length))) throw new Error(`Content-Length ${lengths}`);
  const rest = bytes.subarray(end + 4);
  const code = Number(status[1]);
  if (method === 'HEAD' || code === 304 || code === 204) {
    if (rest.length > 0) throw new Error(`${rest.length} bytes after a head that has no body`);
    return { status: code, headers, body: rest };
  }
  if (codings.length > 0) {
    if (codings.join(',').trim().toLowerCase() !== 'chunked') throw new Error(`Transfer-Encoding ${codings}`);
    return { status: code, headers, body: dechunk(rest, stream) };
  }
  if (lengths.length === 1) {
    if (rest.length !== Number(lengths[0])) throw new Error(`Content-Length ${lengths[0]}, body ${rest.length}`);
    return { status: code, headers, body: rest };
  }
  throw new Error('no framing: neither Content-Length nor chunked');
}

/** A chunked body's bytes; each chunk's size must match; a stream read in part may end mid-way. */
function dechunk(bytes: Buffer, partial: boolean): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) {
      if (partial) return Buffer.concat(parts);
      throw new Error('chunked body ends without its last chunk');
    }
    const size = bytes.subarray(at, lineEnd).toString('latin1');
    if (!/^[0-9a-fA-F]+$/.test(size)) throw new Error(`chunk size ${JSON.stringify(size)}`);
    const length = Number.parseInt(size, 16);
    if (length === 0) return Buffer.concat(parts);
    const data = bytes.subarray(lineEnd + 2, lineEnd + 2 + length);
    if (data.length < length && partial) return Buffer.concat([...parts, data]);
    if (bytes.subarray(lineEnd + 2 + length, lineEnd + 4 + length).toString() !== '\r\n') {
      throw new Error('a chunk is not the size it says');
    }
    parts.push(data);
    at = lineEnd + 4 + length;
  }
}

/** Sends one request on a new socket and reads what comes back until the server closes, or `ms` for a stream. */
function exchange(request: string, ms = 5000): Promise<Buffer> {
  const { port } = new URL(served.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.on('error', reject);
  });
}

const QUERY = '{ packages(limit: 2, seed: 3) { results { id title } } }';
const ACCEPTS = [
  undefined,
  '*/*',
  'application/json',
  'application/graphql-response+json',
  'multipart/mixed',
  'multipart/mixed, application/json',
  'text/event-stream, application/json',
];

function request(method: string, path: string, headers: Record<string, string | undefined>, body?: string): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: gateway.test', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

describe(`valid HTTP/1.1 framing on ${engineName}`, () => {
  it('every Accept the GraphQL door serves, GET and POST, made and kept', async () => {
    const seen = new Set<string>();
    for (const accept of ACCEPTS) {
      for (const round of ['made', 'kept']) {
        const get = `/graphql?query=${encodeURIComponent(QUERY)}`;
        const post = JSON.stringify({ query: QUERY });
        for (const [method, raw] of [
          ['GET', request('GET', get, { accept })],
          ['POST', request('POST', '/graphql', { accept, 'content-type': 'application/json' }, post)],
        ] as const) {
          const where = `${method} ${accept ?? '(no Accept)'} ${round}`;
          const parsed = parseStrictly(await exchange(raw), method, false);
          expect(parsed.status, where).toBe(200);
          expect(parsed.body.toString(), where).toContain('"packages"');
          seen.add(parsed.headers.find(([n]) => n === 'content-type')?.[1].split(';')[0] ?? '');
        }
      }
    }
    expect([...seen].sort()).toEqual(['application/graphql-response+json', 'application/json', 'multipart/mixed']);
  });

  it('an event stream, a refusal and the v2 door', async () => {
    const stream = request('GET', `/graphql?query=${encodeURIComponent(LISTING_CHANGED)}`, {
      accept: 'text/event-stream',
    });
    const parsed = parseStrictly(await exchange(stream, 500), 'GET', true);
    expect(parsed.status).toBe(200);
    expect(parsed.body.toString()).toMatch(/^:/);
    for (const [method, path, accept] of [
      ['GET', '/v2/local-package-list/?limit=2&seed=1', undefined],
      ['GET', '/v2/local-package-list/?limit=2&seed=1', undefined],
      ['HEAD', '/v2/local-package-list/?limit=2&seed=1', undefined],
      ['GET', '/v2/local-package-list/?limit=2&seed=1', 'text/html'],
      ['HEAD', `/graphql?query=${encodeURIComponent(QUERY)}`, undefined],
      ['GET', '/graphql?query={', 'application/json'],
      ['GET', '/nope', undefined],
    ] as const) {
      const answer = parseStrictly(await exchange(request(method, path, { accept })), method, false);
      expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(200);
    }
  });
});
