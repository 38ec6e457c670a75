// API keys: configured as hashes, presented as bearer tokens.
import { describe, expect, it } from 'vitest';
import { hashKey, identify, newApiKey, parseApiKeys } from '../src/api-keys.js';

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
    [`a::${'0'.repeat(64)},a::${'1'.repeat(64)}`, true, 'entry 2: the name a is used twice'],
    [`a:private:${'0'.repeat(64)}`, false, 'entry 1 must read name:sha256-hex'],
  ])('refuses %j', (text, withScopes, message) => {
    expect(parseApiKeys(text, withScopes)).toMatch(message);
  });
});
