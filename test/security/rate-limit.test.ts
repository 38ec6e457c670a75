// Two started instances sharing Redis draw on one rate-limit budget per client, over real HTTP.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/api-keys.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

// A key of its own per run: Redis outlives the test, and so would an address's count.
const KEY = `lgw_${randomBytes(12).toString('hex')}`;
const NAME = `rate-${randomBytes(6).toString('hex')}`;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  const env = {
    SEED_PACKAGES: '5',
    REDIS_URL: 'redis://127.0.0.1:6379',
    // One budget is the point here: a generous deadline, so a busy machine never sends a count to memory.
    REDIS_TIMEOUT: '2',
    RATE_LIMIT: '5',
    RATE_LIMIT_WINDOW: '60',
    API_KEYS: `${NAME}::${hashKey(KEY).toString('hex')}`,
  };
  servers.push(
    ...(await Promise.all([
      startServer({ ...env, DATA_DIR: copyOfTemplate() }),
      startServer({ ...env, DATA_DIR: copyOfTemplate() }),
    ])),
  );
});
afterAll(() => Promise.all(servers.map((server) => server.stop('SIGKILL'))));

describe('rate limits shared through Redis', () => {
  it('count one budget per client across instances, on both doors, and refuse past it within a second', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const auth = { authorization: `Bearer ${KEY}` };
    const graphql = (server: ServerProcess) =>
      fetch(`${server.url}/graphql?query=${encodeURIComponent('{ packages(limit: 1) { count } }')}`, { headers: auth });
    const v2 = (server: ServerProcess) => fetch(`${server.url}/v2/local-package-list/?limit=1`, { headers: auth });
    const statuses = [];
    for (const send of [() => graphql(a), () => v2(b), () => graphql(b), () => v2(a), () => graphql(a)]) {
      statuses.push((await send()).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    for (const [send, shape] of [
      [() => graphql(b), /"code":"RATE_LIMITED"/],
      [() => v2(a), /^\{"detail":"Request was throttled\. Expected available in \d+ seconds?\."\}$/],
    ] as const) {
      const started = performance.now();
      const response = await send();
      expect(performance.now() - started).toBeLessThan(1000);
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await response.text()).toMatch(shape);
    }
    // Health checks are not counted.
    expect((await fetch(`${b.url}/healthz`)).status).toBe(200);
  });
});
