import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration', () => {
  it('defaults to the embedded database in ./data with 2,000 demo packages on port 4000', () => {
    expect(loadConfig({})).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      database: { kind: 'pglite', dataDir: './data' },
      seedPackages: 2000,
      logLevel: 'info',
      publicUrl: undefined,
      trustProxy: false,
    });
  });

  it('defaults to limits a public API can live with, open CORS without credentials, and no keys', () => {
    expect(loadConfig({})).toMatchObject({
      limits: { tokens: 3000, depth: 15, aliases: 30, directives: 20, fields: 1000, cost: 60_000 },
      introspection: true,
      maxBodyBytes: 102_400,
      requestTimeoutMs: 10_000,
      corsOrigins: ['*'],
      apiKeys: [],
      v2ApiKeys: undefined,
      rateLimit: { requests: 600, windowMs: 60_000 },
      redisUrl: undefined,
    });
  });

  it('reads API keys as name:scopes:hash and v2 keys as name:hash', () => {
    const hash = 'a'.repeat(64);
    const config = loadConfig({
      API_KEYS: `shop:private:${hash}, reports::${'b'.repeat(64)}`,
      V2_API_KEYS: `app:${hash}`,
    });
    expect(config.apiKeys.map((k) => [k.name, [...k.scopes]])).toEqual([
      ['shop', ['private']],
      ['reports', []],
    ]);
    expect(config.v2ApiKeys?.map((k) => k.hash.toString('hex'))).toEqual([hash]);
  });

  it('never prints a database password or a key hash in its error', () => {
    let error = '';
    try {
      loadConfig({ DATABASE_URL: 'mysql://app:s3cret@db:5432/x', PORT: 'x', API_KEYS: 'bad' });
    } catch (e) {
      error = (e as Error).message;
    }
    expect(error).toContain('PORT="x"');
    expect(error).toContain('DATABASE_URL="mysql://app:***@db:5432/x"');
    expect(error).toContain('API_KEYS=(hidden) entry 1 must read name:scopes:sha256-hex');
    expect(error).not.toContain('s3cret');
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/listing', PORT: '8080' });
    expect(config.database).toEqual({
      kind: 'postgresql',
      url: 'postgresql://postgres@127.0.0.1:5432/listing',
      directUrl: undefined,
      replicaUrls: [],
      pooler: 'none',
      replicaMaxLagMs: 10_000,
    });
    expect(config.port).toBe(8080);
  });

  it('reads replicas, the direct connection and the pooler mode', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://app@pgbouncer:6432/listing',
      DATABASE_DIRECT_URL: 'postgresql://app@primary:5432/listing',
      DATABASE_REPLICA_URLS: ' postgresql://app@replica-1/listing , postgresql://app@replica-2/listing,',
      DATABASE_POOLER: 'transaction',
      REPLICA_MAX_LAG: '2.5',
    });
    expect(config.database).toEqual({
      kind: 'postgresql',
      url: 'postgresql://app@pgbouncer:6432/listing',
      directUrl: 'postgresql://app@primary:5432/listing',
      replicaUrls: ['postgresql://app@replica-1/listing', 'postgresql://app@replica-2/listing'],
      pooler: 'transaction',
      replicaMaxLagMs: 2500,
    });
  });

  it('refuses a replica that is not a PostgreSQL URL and an unknown pooler mode, without their passwords', () => {
    const error = configError({
      DATABASE_URL: 'postgresql://app@primary/listing',
      DATABASE_REPLICA_URLS: 'postgresql://app@replica-1/listing,mysql://app:s3cret@replica-2/listing',
      DATABASE_POOLER: 'session',
    });
    expect(error).toContain('DATABASE_REPLICA_URLS');
    expect(error).toContain('DATABASE_POOLER');
    expect(error).not.toContain('s3cret');
  });

  it('takes the public URL without its trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/listing/' }).publicUrl).toBe(
      'https://api.example.com/listing',
    );
  });

  it('bounds automatic persisted queries by default, and reads their settings', () => {
    expect(loadConfig({}).apq).toEqual({
      maxQueries: 10_000,
      maxBytes: 16 * 1024 * 1024,
      registrationsPerMinute: 100,
      ttlMs: 86_400_000,
      maxDocumentBytes: 16_384,
      redisMaxBytes: 64 * 1024 * 1024,
      maxBytesPerCaller: 512 * 1024,
    });
    const env = {
      APQ_MAX_QUERIES: '0',
      APQ_MAX_BYTES: '65536',
      APQ_REGISTRATIONS: '5',
      APQ_TTL: '90',
      APQ_MAX_DOCUMENT_BYTES: '4096',
      APQ_REDIS_MAX_BYTES: '0',
      APQ_MAX_BYTES_PER_CALLER: '100000',
    };
    expect(loadConfig(env).apq).toEqual({
      maxQueries: 0,
      maxBytes: 65_536,
      registrationsPerMinute: 5,
      ttlMs: 90_000,
      maxDocumentBytes: 4096,
      redisMaxBytes: 0,
      maxBytesPerCaller: 100_000,
    });
  });

  it('bounds what one client may hold by default: connections per address and event streams', () => {
    const defaults = loadConfig({});
    expect([defaults.maxConnectionsPerAddress, defaults.sseMaxPerCaller]).toEqual([128, 10]);
    const set = loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0', SSE_MAX_PER_CALLER: '2' });
    expect([set.maxConnectionsPerAddress, set.sseMaxPerCaller]).toEqual([0, 2]);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).database.kind).toBe('pglite');
  });

  it.each([
    [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL="mysql://localhost/db" must be a postgres://'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL="not a url" must be a postgres://'],
    [{ PORT: 'eighty' }, 'PORT="eighty" must be a whole number from 0 to 65535'],
    [{ PORT: '70000' }, 'PORT="70000" must be a whole number from 0 to 65535'],
    [{ SEED_PACKAGES: '-1' }, 'SEED_PACKAGES="-1" must be a whole number'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL="loud"'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL="ftp://x" must be an http(s) URL'],
    [{ CORS_ORIGINS: 'https://a.example/path' }, 'CORS_ORIGINS="https://a.example/path" must be * or'],
    [{ API_KEYS: `x:admin:${'a'.repeat(64)}` }, 'API_KEYS=(hidden) entry 1 (x): unknown scope "admin"'],
    [{ V2_API_KEYS: 'x:ABC' }, 'V2_API_KEYS=(hidden) entry 1 (x): the hash must be 64 lower-case hex digits'],
    [{ REQUEST_TIMEOUT: '0' }, 'REQUEST_TIMEOUT="0" must be a number of seconds from 0.1 to 600'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL="http://x" must be a redis://'],
    [
      { PUBLIC_URL: 'https://api.example.com/?a=1' },
      'PUBLIC_URL="https://api.example.com/?a=1" must be an http(s) URL without query',
    ],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY="yes"'],
    [{ APQ_REGISTRATIONS: 'many' }, 'APQ_REGISTRATIONS="many" must be a whole number from 0 to 1000000'],
    [{ APQ_MAX_BYTES: '1000' }, 'APQ_MAX_BYTES="1000" must be a whole number from 65536'],
    [{ APQ_TTL: '0' }, 'APQ_TTL="0" must be a number of seconds from 1 to 2592000'],
  ])('rejects %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('lists every problem in one line', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'y' });
      expect.unreachable();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('PORT=');
      expect(message).toContain('LOG_LEVEL=');
      expect(message).not.toContain('\n');
    }
  });
});
