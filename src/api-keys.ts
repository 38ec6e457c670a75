// API keys: configured as SHA-256 hashes (never the keys themselves), presented as `Authorization: Bearer <key>`.
// A presented key is hashed and compared with every configured hash in constant time, so neither the answer's
// timing nor an early exit tells how much of a guess was right. Keys are 32 random bytes, so a plain SHA-256
// (no salt, no stretching) is enough: there is nothing to brute-force.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCOPES = ['private'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKey {
  /** A label for logs and rate limits; never the key. */
  name: string;
  scopes: ReadonlySet<Scope>;
  hash: Buffer;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const HASH = /^[0-9a-f]{64}$/;

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A new random key and its configuration entries. */
export function newApiKey(): { key: string; hash: string } {
  const key = `lgw_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashKey(key).toString('hex') };
}

/**
 * Reads `name:scope+scope:sha256hex,...` (with scopes) or `name:sha256hex,...` (without); returns the keys, or
 * a message saying what is wrong with the first bad entry.
 */
export function parseApiKeys(text: string, withScopes: boolean): ApiKey[] | string {
  const form = withScopes ? 'name:scopes:sha256-hex (scopes joined by +, may be empty)' : 'name:sha256-hex';
  const keys: ApiKey[] = [];
  for (const [index, entry] of text.split(',').entries()) {
    const parts = entry.trim().split(':');
    const [name, scopeText, hash] = withScopes ? parts : [parts[0], '', parts[1]];
    if (parts.length !== (withScopes ? 3 : 2) || !name || !hash) return `entry ${index + 1} must read ${form}`;
    if (!NAME.test(name)) return `entry ${index + 1}: the name must be 1-64 letters, digits, _ . or -`;
    if (!HASH.test(hash)) return `entry ${index + 1} (${name}): the hash must be 64 lower-case hex digits`;
    const scopes = (scopeText ?? '').split('+').filter(Boolean);
    const unknown = scopes.find((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (unknown) return `entry ${index + 1} (${name}): unknown scope ${JSON.stringify(unknown)} (known: ${SCOPES})`;
    if (keys.some((key) => key.name === name)) return `entry ${index + 1}: the name ${name} is used twice`;
    keys.push({ name, scopes: new Set(scopes as Scope[]), hash: Buffer.from(hash, 'hex') });
  }
  return keys;
}

export type Credential = { kind: 'none' } | { kind: 'invalid' } | { kind: 'key'; key: ApiKey };

/** The bearer token of a request checked against the keys: absent, not one of them, or the key it matched. */
export function identify(authorization: string | null, keys: readonly ApiKey[]): Credential {
  if (authorization === null || authorization.trim() === '') return { kind: 'none' };
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match?.[1]) return { kind: 'invalid' };
  const presented = hashKey(match[1]);
  let found: ApiKey | undefined;
  for (const key of keys) {
    // Every key is compared, whatever matched before, so the time does not depend on which key matched.
    if (timingSafeEqual(presented, key.hash) && !found) found = key;
  }
  return found ? { kind: 'key', key: found } : { kind: 'invalid' };
}
