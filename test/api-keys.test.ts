// API keys: configured as hashes, presented as bearer tokens.
import { describe, expect, it } from 'vitest';
import { hashKey, identify, newApiKey, parseApiKeyFile, parseApiKeys } from '../src/api-keys.js';

describe('API keys', () => {
  it('a new key matches its own configuration entry and no other', () => {
    const one = newApiKey();
    const two = newApiKey();
    expect(one.key).toMatch(/^lgw_[A-Za-z0-9_-]{43}$/);
    expect(one.hash).toBe(hashKey(one.key).toString('hex'));
    const keys = parseApiKeys(`one:private:${one.hash},two::${two.hash}`, true);
    if (typeof keys === 'string') throw new Error(keys);
    const found = identify(`Bearer ${one.key}`, keys);
    expect(found.kind === 'key' && found.key.name).toBe('one');
    expect(found.kind === 'key' && [...found.key.scopes]).toEqual(['private']);
    const other = identify(`bearer ${two.key}`, keys);
    expect(other.kind === 'key' && other.key.name).toBe('two');
  });

  it('tells no credential from a wrong one', () => {
    const keys = parseApiKeys(`a:${'0'.repeat(64)}`, false);
    if (typeof keys === 'string') throw new Error(keys);
    expect(identify(null, keys)).toEqual({ kind: 'none' });
    expect(identify('', keys)).toEqual({ kind: 'none' });
    expect(identify('Bearer lgw_x', keys)).toEqual({ kind: 'invalid' });
    expect(identify('Basic dXNlcjpwYXNz', keys)).toEqual({ kind: 'invalid' });
  });

  it.each([
    ['a:b', true, 'entry 1 must read name:scopes:sha256-hex'],
    [`a b::${'0'.repeat(64)}`, true, 'entry 1: the name must be 1-64 letters'],
    [`a::${'0'.repeat(63)}`, true, 'entry 1 (a): the hash must be 64 lower-case hex digits'],
    [`a:root:${'0'.repeat(64)}`, true, 'entry 1 (a): unknown scope "root"'],
    [`a::${'0'.repeat(64)},b::${'0'.repeat(64)}`, true, 'entry 2 (b): the same key as entry 1'],
    [`a::${'0'.repeat(64)},a:private:${'1'.repeat(64)}`, true, 'entry 2: the name a has other scopes in entry 1'],
    [`a:private:${'0'.repeat(64)}`, false, 'entry 1 must read name:sha256-hex'],
  ])('refuses %j', (text, withScopes, message) => {
    expect(parseApiKeys(text, withScopes)).toMatch(message);
  });

  it('takes two keys under one name, the old and the new of a rotation: both are known, by that name', () => {
    const old = newApiKey();
    const next = newApiKey();
    const keys = parseApiKeys(`shop:private:${old.hash},shop:private:${next.hash}`, true);
    if (typeof keys === 'string') throw new Error(keys);
    for (const key of [old.key, next.key]) {
      const found = identify(`Bearer ${key}`, keys);
      expect(found.kind === 'key' && [found.key.name, [...found.key.scopes]]).toEqual(['shop', ['private']]);
    }
  });

  it('reads a keys file: entries a line or comma-separated, comment lines skipped, faults named by line', () => {
    const [one, two, three] = [newApiKey(), newApiKey(), newApiKey()];
    const keys = parseApiKeyFile(
      `# issued 2026-11\nshop:${one.hash}, shop:${two.hash}\n\n  reports:${three.hash}\n`,
      false,
    );
    expect(typeof keys !== 'string' && keys.map((k) => k.name)).toEqual(['shop', 'shop', 'reports']);
    expect(parseApiKeyFile(`shop:${one.hash}\n# x\nshop:${one.hash},bad`, false)).toBe(
      'line 3, entry 1 (shop): the same key as line 1',
    );
    expect(parseApiKeyFile('\n# none\n', false)).toMatch(/^holds no entry/);
  });
});
