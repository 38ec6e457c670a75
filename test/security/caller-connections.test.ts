// What one caller may hold of a server process's listener (docs/security.md, "What one caller may hold"): its
// connections, the request heads and bodies on them. One address at its bound of connections, each holding a
// body half sent, leaves a second address served; a connection past the bound is answered 429 at once; a head past
// Node's 16 KB is refused; a connection that brings no request is closed. Callers are told apart by address:
// 127.0.0.2, 127.0.0.3 and so on, all loopback. The in-process rows are in caller-budgets.test.ts.
import { type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabaseUrl, engineName, onPostgres } from '../helpers/database.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  ms: number;
}

/** One request on a connection of its own from `localAddress`. */
function from(
  localAddress: string,
  base: string,
  path: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        localAddress,
        agent: false,
        headers: {
          accept: 'application/json',
          ...(options.body && { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            ms: performance.now() - started,
          }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

/** A connection from `localAddress` that sends nothing; `closed` resolves when the server closes it. */
async function idle(localAddress: string, base: string): Promise<{ socket: Socket; closed: Promise<number> }> {
  const url = new URL(base);
  const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
  await new Promise((resolve) => socket.once('connect', resolve));
  const opened = performance.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - opened)));
  return { socket, closed };
}

/** A connection from `localAddress` whose request has sent half of a body as large as MAX_BODY_BYTES allows. */
async function halfABody(localAddress: string, base: string): Promise<{ socket: Socket; closed: Promise<number> }> {
  const held = await idle(localAddress, base);
  const head = `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES}\r\n\r\n`;
  held.socket.write(head + '{"query":"'.padEnd(MAX_BODY_BYTES / 2, ' '));
  return held;
}

const QUERY = `/graphql?query=${encodeURIComponent('{ packages(limit: 1) { count } }')}`;
const MAX_BODY_BYTES = 102_400;

describe(`connections per address, on a server process (${engineName})`, () => {
  let server: ServerProcess;
  let database: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    database = onPostgres ? await createPostgresDatabaseUrl() : undefined;
    server = await startServer({
      ...(database ? { DATABASE_URL: database.url } : { DATA_DIR: copyOfTemplate() }),
      SEED_PACKAGES: '5',
      MAX_CONNECTIONS_PER_ADDRESS: '4',
    });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  it('answers a connection past MAX_CONNECTIONS_PER_ADDRESS 429 at once, while another address is served', async () => {
    // The address's four connections, each with a body of MAX_BODY_BYTES half sent.
    const held = await Promise.all(Array.from({ length: 4 }, () => halfABody('127.0.0.2', server.url)));
    const refused = await from('127.0.0.2', server.url, QUERY);
    expect(refused.ms).toBeLessThan(1000);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toEqual({
      errors: [
        {
          message:
            'Too many connections from this address: the limit is 4 at once (MAX_CONNECTIONS_PER_ADDRESS). Reuse one, or retry in 1 s.',
          extensions: { code: 'RATE_LIMITED' },
        },
      ],
    });
    // In the v2 door's words, and a body sent with the request is read and dropped, not reset.
    const v2 = await from('127.0.0.2', server.url, '/v2/local-package-list/?limit=1');
    expect([v2.status, v2.body]).toEqual([429, '{"detail":"Request was throttled. Expected available in 1 second."}']);
    const posted = await from('127.0.0.2', server.url, '/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: `{ __typename }${' '.repeat(50_000)}` }),
    });
    expect(posted.status).toBe(429);
    // A connection past the bound that sends nothing is closed within a second.
    const silent = await idle('127.0.0.2', server.url);
    expect(await silent.closed).toBeLessThan(1500);

    const other = await from('127.0.0.3', server.url, QUERY);
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body)).toEqual({ data: { packages: { count: 5 } } });
    // A request head past Node's 16 KB is refused on its own connection; the address's others are untouched.
    const bigHead = await from('127.0.0.3', server.url, QUERY, { headers: { 'x-padding': 'a'.repeat(17_000) } });
    expect(bigHead.status).toBe(431);
    expect((await from('127.0.0.3', server.url, QUERY)).status).toBe(200);

    // The first address's room comes back as its connections close.
    held[0]?.socket.destroy();
    await held[0]?.closed;
    await sleep(50);
    expect((await from('127.0.0.2', server.url, QUERY)).status).toBe(200);
    for (const connection of held) connection.socket.destroy();
  });

  it('closes a connection that brings no request within the head deadline (10 s)', async () => {
    const { closed } = await idle('127.0.0.4', server.url);
    const ms = await closed;
    expect(ms).toBeGreaterThan(9000);
    expect(ms).toBeLessThan(12_000);
  });
});
