// The attacks a public listing meets, each sent over real HTTP to a started server: every one is refused with a
// 4xx within a second while another client is served, no answer carries a stack trace, and the server's memory
// does not grow with the refused documents.
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/api-keys.js';
import { rawRequest, rssMb } from '../helpers/http.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const KEY = 'lgw_attack-test-private-key';
let server: ServerProcess;

beforeAll(async () => {
  server = await startServer({
    DATA_DIR: copyOfTemplate(),
    SEED_PACKAGES: '60',
    RATE_LIMIT: '0',
    // A bounded heap, as in a container: what is dropped is collected, not left to grow the process.
    NODE_OPTIONS: '--max-old-space-size=128',
    API_KEYS: `ops:private:${hashKey(KEY).toString('hex')}`,
  });
});
afterAll(() => server?.stop('SIGKILL'));

interface Answer {
  status: number;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
  ms: number;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), ms: performance.now() - started };
}

/** Sends the attack and, while it is in flight, a request of another client; both must be answered in 1 s. */
async function whileServing<T>(attack: () => Promise<T>): Promise<T> {
  const [result, health] = await Promise.all([
    attack(),
    (async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/healthz`);
      return { status: response.status, ms: performance.now() - started };
    })(),
  ]);
  expect(health.status).toBe(200);
  expect(health.ms).toBeLessThan(1000);
  return result;
}

function expectRefusal(answer: Answer, limit: string) {
  expect(answer.status).toBe(400);
  expect(answer.ms).toBeLessThan(1000);
  expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_LIMIT_EXCEEDED', limit });
  expect(answer.body.data).toBeUndefined();
}

/** Fragments that each spread the previous one twice: 2^levels fields once expanded. */
function fragmentExplosion(levels: number): string {
  let fragments = 'fragment F0 on Package { id title }\n';
  for (let i = 1; i <= levels; i++) fragments += `fragment F${i} on Package { ...F${i - 1} ...F${i - 1} }\n`;
  return `{ packages(limit: 1) { results { ...F${levels} } } }\n${fragments}`;
}

const FULL_PACKAGE = `id title price description whatsIncluded whatToExpect faqs tagKeywords
  photographer { name companyName socials { url } coverImages { image } calendarWorkDays { day workTimesJson } }
  images { image thumbnail } priorityTags { tag } linkedAddOns { packageAddOnTemplate { name price } }`;

describe('abusive GraphQL is refused before it runs', () => {
  it.each([22, 30])('a %i-level fragment explosion (~1 KB) is refused in well under a second', async (levels) => {
    const answer = await whileServing(() => post({ query: fragmentExplosion(levels) }));
    expectRefusal(answer, 'fields');
    expect(answer.body.errors?.[0]?.message).toBe(
      `The query selects ${2 ** (levels + 1) + 2} fields once its fragments are expanded; the limit is 1000.`,
    );
  });

  it('aliases of a page are refused: 1,000 by their size, 100 by their number, 10 by their cost', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: packages(limit: 100) { results { id } }`).join(' ')} }`;
    expectRefusal(await whileServing(() => post({ query: aliases(1000) })), 'tokens');
    const hundred = await whileServing(() => post({ query: aliases(100) }));
    expectRefusal(hundred, 'aliases');
    expect(hundred.body.errors?.[0]?.message).toBe('The query uses 100 aliases; the limit is 30.');
    // Within the alias limit, the cost still adds up: 10 pages of 100 with most fields.
    const pages = Array.from({ length: 10 }, (_, i) => `p${i}: packages(limit: 100) { results { ${FULL_PACKAGE} } }`);
    const answer = await whileServing(() => post({ query: `{ ${pages.join(' ')} }` }));
    expectRefusal(answer, 'cost');
    expect(answer.body.errors?.[0]?.message).toMatch(/^The query costs \d+ .*; the limit is 60000\.$/);
  });

  it('a document of more tokens than the limit is not parsed to its end', async () => {
    const query = `{ ${'a '.repeat(20_000)}}`;
    const answer = await whileServing(() => post({ query }));
    expectRefusal(answer, 'tokens');
    expect(answer.body.errors?.[0]?.message).toBe('The document has more than 3000 tokens; the limit is 3000.');
  });

  it('the deepest legitimate path (7 fields) passes the depth limit', async () => {
    const deepest = '{ packages { results { photographer { calendarWorkDays { workTimes { start { hour } } } } } } }';
    const answer = await post({ query: deepest });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
  });

  it('the full v2 page of 100 (every field, private ones too) passes the limits', async () => {
    const response = await fetch(`${server.url}/v2/local-package-list/?limit=100&seed=3`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { results: unknown[] }).results).toHaveLength(60);
  });

  it('mutations and unknown subscriptions are 400 with a code, and log no error', async () => {
    const mutation = await post({ query: 'mutation { x }' });
    expect(mutation.status).toBe(400);
    expect(mutation.body.errors?.[0]?.extensions?.code).toBe('OPERATION_NOT_SUPPORTED');
    // The one subscription is listingChanged (test/graphql/subscriptions.test.ts); any other field is unknown.
    const subscription = await post({ query: 'subscription { x }' });
    expect(subscription.status).toBe(400);
    expect(subscription.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const badVariables = await post({
      query: 'query($l: Int) { packages(limit: $l) { count } }',
      variables: { l: 'x' },
    });
    expect(badVariables.status).toBe(400);
    expect(badVariables.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(server.output()).not.toMatch(/"level":(50|60)/);
  });
});

/**
 * Sends a large body as a client that reads while it writes; the answer may come (and the server stop reading)
 * before the body is through.
 */
function sendLargeBody(bytes: number): Promise<{ status: number; ms: number }> {
  const url = new URL(server.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let head = '';
    let status = 0;
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < bytes && status === 0 && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk.subarray(0, Math.min(chunk.length, bytes - sent + chunk.length)))) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    socket.on('data', (data) => {
      head += data.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match && status === 0) {
        status = Number(match[1]);
        resolve({ status, ms: performance.now() - started });
        socket.destroy();
      }
    });
    socket.on('error', () => {}); // the server may stop reading once it has answered
    socket.on('close', () => (status === 0 ? reject(new Error(`connection closed without an answer: ${head}`)) : 0));
  });
}

describe('request size and memory', () => {
  it('a 24 MB body is refused with 413 before it is read, four at once, and memory stays flat', async () => {
    // One round: four 24 MB bodies at once, then refused documents (over the token limit, fragment explosions)
    // and an oversized chunked body.
    const round = async (number: number) => {
      const answers = await whileServing(() => Promise.all([1, 2, 3, 4].map(() => sendLargeBody(24 * 1024 * 1024))));
      for (const answer of answers) {
        expect(answer.status).toBe(413);
        // Within a bound a loaded 2-core machine keeps (four at once measured 0.1-1.2 s); the memory check below is
        // what tells a refusal from a read body.
        expect(answer.ms).toBeLessThan(3000);
      }
      for (let i = 0; i < 20; i++) {
        const tokens = `{ a${number}_${i} ${'a '.repeat(20_000)}}`;
        expect((await post({ query: tokens })).status).toBe(400);
        expect((await post({ query: `${fragmentExplosion(30)}\n# ${number} ${i}` })).status).toBe(400);
      }
      const chunked = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Blob(['{"query":"', 'a'.repeat(300 * 1024), '"}']).stream(),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
    };
    // The runtime keeps what it has dropped until its collector runs (Node 24 holds the dropped chunks of a
    // body as external memory for a while), so memory is judged by its trend: after three rounds the process
    // has its working size, and three more (288 MB of bodies) add less than half of that, where keeping what was
    // refused would add all of it. (The collector's timing alone has moved it by up to 97 MB on a loaded CI.)
    for (let number = 0; number < 3; number++) await round(number);
    const settled = rssMb(server.pid);
    for (let number = 3; number < 6; number++) await round(number);
    expect(rssMb(server.pid) - settled).toBeLessThan(144);
  });

  it("a refused body closes its connection: a keep-alive client's next request is answered, never reset", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const url = new URL(path, server.url);
        const outgoing = httpRequest(url, { method, agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    try {
      for (let i = 0; i < 5; i++) {
        const refused = await send('POST', '/graphql', Buffer.alloc(2 * 1024 * 1024, 'a'));
        expect(refused).toEqual({ status: 413, connection: 'close' });
        expect((await send('GET', '/livez')).status).toBe(200);
      }
    } finally {
      agent.destroy();
    }
  });
});

describe('the HTTP edge routes by path only', () => {
  it.each(['a b', '[', 'a:99999', '<x>', 'x/metrics?', 'x\\metrics?', 'x/graphql?'])(
    'Host %j gets 400 with a short JSON body on every route',
    async (host) => {
      for (const path of ['/v2/local-package-list/', '/graphql', '/healthz', '/metrics', '/nowhere']) {
        const response = await rawRequest(server.url, { path, headers: { Host: host } });
        expect(response.status).toBe(400);
        const body = JSON.parse(response.body) as { detail?: string; errors?: { message: string }[] };
        expect(body.detail ?? body.errors?.[0]?.message).toBe('Malformed Host header.');
        expect(response.body).not.toMatch(/\bat .*\(|node_modules|\.ts:\d+|\/work\//);
        expect(response.body).not.toContain('# TYPE');
      }
    },
  );

  it('a path that parsing would turn into another route is refused; an absolute-form target routes by its path', async () => {
    for (const path of [
      '/v2/../metrics',
      '/v2\\..\\metrics',
      '//metrics',
      '/v2/local-package-list/%2e%2e/%2e%2e/metrics',
    ]) {
      const response = await rawRequest(server.url, { path });
      expect(response.body).not.toContain('# TYPE');
      expect([400, 404]).toContain(response.status);
    }
    const absolute = await rawRequest(server.url, { path: 'http://elsewhere.example/healthz' });
    expect(absolute.status).toBe(200);
    expect(JSON.parse(absolute.body)).toMatchObject({ status: 'ok' });
  });

  it('malformed requests to every route never answer with a stack trace or a file path', async () => {
    const probes: { method?: string; path: string; headers?: Record<string, string>; body?: string }[] = [];
    for (const path of ['/graphql', '/v2/local-package-list/', '/v2/openapi.json', '/healthz', '/metrics', '/x']) {
      probes.push(
        { path: `${path}?query=%7B`, headers: { accept: 'application/json' } },
        { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: '{"query":' },
        {
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json' },
          body: '{"query":"{ x }","variables":"no"}',
        },
        { method: 'POST', path, headers: { 'content-type': 'text/plain' }, body: 'query={__typename}' },
        { method: 'PUT', path, body: '\u0000\u0001' },
        { path: `${path}?limit=%F0%9F&seed=%00&format=%ZZ` },
        { method: 'DELETE', path, headers: { authorization: 'Bearer \u00ff' } },
      );
    }
    for (const probe of probes) {
      const response = await rawRequest(server.url, probe);
      expect(response.status, `${probe.method ?? 'GET'} ${probe.path}`).toBeLessThan(500);
      expect(response.body).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|\/work\/|file:\/\//);
    }
  });
});

describe('bounded metrics', () => {
  it('2,000 distinct operation names leave /metrics under 200 KB', async () => {
    for (let start = 0; start < 2000; start += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => post({ query: `query Op${start + i}x { __typename }` })));
    }
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics.length).toBeLessThan(200 * 1024);
    expect(metrics).toContain('operation="other"');
    expect(metrics).not.toContain('Op1999x');
  });
});

describe('personal data', () => {
  const emails = `{ ${Array.from({ length: 20 }, (_, i) => `p${i}: packages(limit: 3, offset: ${i * 3}, seed: 1) { results { photographerEmail photographer { phone paymentsUserId crmOrganizationId name } } }`).join(' ')} }`;

  it('anonymous GraphQL gets null private fields, one FORBIDDEN error, and the rest of the page', async () => {
    const answer = await post({ query: emails });
    expect(answer.status).toBe(200);
    const pages = Object.values(answer.body.data as Record<string, { results: Record<string, unknown>[] }>);
    const records = pages.flatMap((p) => p.results);
    expect(records).toHaveLength(60);
    for (const record of records) {
      expect(record.photographerEmail).toBeNull();
      expect(record.photographer).toMatchObject({ phone: null, paymentsUserId: null, crmOrganizationId: null });
      expect((record.photographer as { name: string }).name).not.toBe('');
    }
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors?.[0]?.extensions).toEqual({
      code: 'FORBIDDEN',
      fields: [
        'Package.photographerEmail',
        'Photographer.crmOrganizationId',
        'Photographer.paymentsUserId',
        'Photographer.phone',
      ],
    });
  });

  it('a key with the private scope reads them; a key that is not ours gets 401', async () => {
    const answer = await post({ query: emails }, { authorization: `Bearer ${KEY}` });
    expect(answer.body.errors).toBeUndefined();
    const first = (answer.body.data as Record<string, { results: { photographerEmail: string }[] }>).p0?.results[0];
    expect(first?.photographerEmail).toMatch(/@/);
    const wrong = await post({ query: '{ __typename }' }, { authorization: 'Bearer lgw_not-a-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('the v2 path keeps the full records', async () => {
    const page = (await (await fetch(`${server.url}/v2/local-package-list/?limit=3&seed=1`)).json()) as {
      results: { photographer_email: string; photographer: { payments_user_id: string } }[];
    };
    for (const record of page.results) {
      expect(record.photographer_email).toMatch(/@/);
      expect(typeof record.photographer.payments_user_id).toBe('string');
    }
  });
});
