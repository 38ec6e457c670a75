// API keys: configured as SHA-256 hashes (never the keys themselves), presented as `Authorization: Bearer <key>`.
// A presented key is hashed and compared with every configured hash in constant time, so neither the answer's
// timing nor an early exit tells how much of a guess was right. Keys are 32 random bytes, so a plain SHA-256
// (no salt, no stretching) is enough: there is nothing to brute-force.
//
// Keys given in a file (API_KEYS_FILE, V2_API_KEYS_FILE) are read again at run time (SIGHUP, or the file seen to
// change): the list the app holds is replaced in place, in one synchronous step, so every holder of it (each
// request's caller identity, at both doors, and the response cache's scopes) sees the new keys at its next request,
// without the app being made again. One name may carry two keys at once, the old and the new: a rotation's overlap.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';

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
 * a message saying what is wrong with the first bad entry. A name may come twice (a key and its successor, while
 * clients move from one to the other), with the same scopes; a key may not.
 */
export function parseApiKeys(text: string, withScopes: boolean): ApiKey[] | string {
  return readEntries(
    text.split(',').map((entry, index) => ({ entry, where: `entry ${index + 1}` })),
    withScopes,
  );
}

/**
 * Reads a keys file: the variable's entries, separated by commas or line breaks; blank lines and lines that begin
 * with `#` are skipped. A file without any entry is refused: it is more likely cut short than meant (unset the
 * variable to run without keys).
 */
export function parseApiKeyFile(text: string, withScopes: boolean): ApiKey[] | string {
  const entries = text.split('\n').flatMap((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return [];
    const parts = trimmed.split(',');
    return parts.map((entry, n) => ({
      entry,
      where: parts.length > 1 ? `line ${index + 1}, entry ${n + 1}` : `line ${index + 1}`,
    }));
  });
  if (entries.length === 0) return 'holds no entry (unset the variable to run without keys)';
  return readEntries(entries, withScopes);
}

function readEntries(entries: { entry: string; where: string }[], withScopes: boolean): ApiKey[] | string {
  const form = withScopes ? 'name:scopes:sha256-hex (scopes joined by +, may be empty)' : 'name:sha256-hex';
  const keys: { key: ApiKey; where: string }[] = [];
  for (const { entry, where } of entries) {
    const parts = entry.trim().split(':');
    const [name, scopeText, hash] = withScopes ? parts : [parts[0], '', parts[1]];
    if (parts.length !== (withScopes ? 3 : 2) || !name || !hash) return `${where} must read ${form}`;
    if (!NAME.test(name)) return `${where}: the name must be 1-64 letters, digits, _ . or -`;
    if (!HASH.test(hash)) return `${where} (${name}): the hash must be 64 lower-case hex digits`;
    const scopes = (scopeText ?? '').split('+').filter(Boolean);
    const unknown = scopes.find((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (unknown) return `${where} (${name}): unknown scope ${JSON.stringify(unknown)} (known: ${SCOPES})`;
    const key: ApiKey = { name, scopes: new Set(scopes as Scope[]), hash: Buffer.from(hash, 'hex') };
    const same = keys.find((other) => other.key.hash.equals(key.hash));
    if (same) return `${where} (${name}): the same key as ${same.where}`;
    // Two keys of one name are one client's old and new key: what the name unlocks must not depend on which.
    const named = keys.find((other) => other.key.name === name);
    if (named && scopesText(key) !== scopesText(named.key)) {
      return `${where}: the name ${name} has other scopes in ${named.where}; both keys of a name carry the same scopes`;
    }
    keys.push({ key, where });
  }
  return keys.map(({ key }) => key);
}

const scopesText = (key: ApiKey) => [...key.scopes].sort().join('+');

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

/** A keys file and the list of keys read from it, which a reload replaces in place. */
export interface KeyFile {
  /** The variable that names the file, for the log. */
  variable: string;
  path: string;
  withScopes: boolean;
  /** The list the app holds (Config.apiKeys or Config.v2ApiKeys): the same array for the process's life. */
  keys: ApiKey[];
}

/** A keys file's text, or why it cannot be read. */
function fileText(path: string): { text: string } | { reason: string } {
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    return { reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

/** A keys file read and checked: its keys, or one line saying what is wrong (the file, a line, an entry). */
export function readKeyFile(path: string, withScopes: boolean): ApiKey[] | string {
  const read = fileText(path);
  return 'reason' in read ? read.reason : parseApiKeyFile(read.text, withScopes);
}

/** Where a reload's outcome goes (a pino logger fits). */
export interface KeyReloadLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** How often a keys file is looked at for a change (its size and times, not its text). */
export const KEY_FILE_POLL_MS = 2000;

/**
 * Reads the keys files again on `reload()` (the server calls it on SIGHUP) and whenever one is seen to change. A
 * good file replaces its keys in place; a bad one leaves the keys in use as they were. Each text read is reported
 * once, in one line: `info` with the names it holds, or `error` with why the keys in use stay; a reload that finds
 * the text last read says only that.
 */
export function watchKeyFiles(files: KeyFile[], log: KeyReloadLog, pollMs = KEY_FILE_POLL_MS) {
  const lastText = new Map<KeyFile, string>();
  const reloadOne = (file: KeyFile, why: 'SIGHUP' | 'the file changed') => {
    const fields = { variable: file.variable, file: file.path, reason: why };
    const read = fileText(file.path);
    const text = 'text' in read ? read.text : undefined;
    if (text !== undefined && text === lastText.get(file)) {
      if (why === 'SIGHUP') log.info(fields, `${file.variable}: the file is as last read; the keys in use stay`);
      return;
    }
    if (text !== undefined) lastText.set(file, text);
    const keys = 'reason' in read ? read.reason : parseApiKeyFile(read.text, file.withScopes);
    if (typeof keys === 'string') {
      log.error(fields, `${file.variable}=${file.path} ${keys}: the keys read before stay in use`);
      return;
    }
    // One synchronous step: no request sees a list half replaced.
    file.keys.splice(0, file.keys.length, ...keys);
    const names: Record<string, number> = {};
    for (const key of keys) names[key.name] = (names[key.name] ?? 0) + 1;
    const listed = Object.entries(names).map(([name, count]) => (count > 1 ? `${name} (${count} keys)` : name));
    log.info({ ...fields, keys: names }, `${file.variable}: keys reloaded: ${listed.join(', ')}`);
  };
  for (const file of files) {
    // The text the start read: a reload of the same text changes nothing.
    const first = fileText(file.path);
    if ('text' in first) lastText.set(file, first.text);
    // Stat polling follows a symbolic link, so a Kubernetes Secret volume's swap of its files is seen too.
    watchFile(file.path, { interval: pollMs, persistent: false }, (now, before) => {
      if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) {
        reloadOne(file, 'the file changed');
      }
    });
  }
  return {
    reload: () => {
      for (const file of files) reloadOne(file, 'SIGHUP');
    },
    stop: () => {
      for (const file of files) unwatchFile(file.path);
    },
  };
}
