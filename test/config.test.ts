import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('defaults to the embedded database in ./data with 2,000 demo packages on port 4000', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      database: { kind: 'pglite', dataDir: './data' },
      seedPackages: 2000,
      logLevel: 'info',
      publicUrl: undefined,
      trustProxy: false,
    });
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/listing', PORT: '8080' });
    expect(config.database).toEqual({ kind: 'postgresql', url: 'postgresql://postgres@127.0.0.1:5432/listing' });
    expect(config.port).toBe(8080);
  });

  it('takes the public URL without its trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/listing/' }).publicUrl).toBe(
      'https://api.example.com/listing',
    );
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
    [
      { PUBLIC_URL: 'https://api.example.com/?a=1' },
      'PUBLIC_URL="https://api.example.com/?a=1" must be an http(s) URL without query',
    ],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY="yes"'],
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
