// Database faults a client should hear about as "try again shortly" (503), not as a server error (500), sorted by
// what they say of the database:
// - `lost`: the connection broke or the server cannot be reached. The database is skipped until its watch finds
//   it well again, and the operation is made again on another one.
// - `busy`: a statement ran past its timeout, waited past it on a lock, or no connection came free in time. The
//   database is well, only loaded: that request fails, and nothing else changes (making it again elsewhere would
//   carry the load to the next database).
// - `conflict`: a replica cancelled the statement for a change it was replaying (SQLSTATE 40001, 40P01). The
//   database is well, and another one can answer at once: the operation is made again elsewhere.

export type FaultKind = 'lost' | 'busy' | 'conflict';

/** The database cannot answer now; the message says why in one line, without secrets. */
export class DatabaseUnavailableError extends Error {
  constructor(
    message: string,
    readonly kind: FaultKind = 'lost',
  ) {
    super(message);
  }
}

// Node's socket errors, and PostgreSQL's SQLSTATEs for the same: connection exceptions (08xxx), shutdown and
// start-up (57P01-57P05).
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const LOST_MESSAGES = [
  // pg's own words for a broken connection, a connection that could not be opened in time included.
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /Connection ended unexpectedly/i,
  /Cannot use a pool after calling end/i,
];
// query_canceled (57014, the statement timeout), lock_not_available (55P03), too many connections (53300).
const BUSY_SQLSTATES = new Set(['57014', '55P03', '53300']);
// pg-pool's words when every connection stayed taken for DB_CONNECT_TIMEOUT, and pg's when a statement went
// unanswered for DB_QUERY_TIMEOUT: a slow statement (behind a pooler no statement_timeout need be set) as much as
// a server gone silent, which the watch, asking on its own connection, finds within two seconds.
const BUSY_MESSAGES = [/timeout exceeded when trying to connect/i, /Query read timeout/i];
// serialization_failure (40001) and deadlock_detected (40P01): what a standby says when it cancels a statement
// for the changes it replays.
const CONFLICT_SQLSTATES = new Set(['40001', '40P01']);

/** What the fault says of the database, or null when it is no database fault (a bug, a bad statement). */
export function faultKind(error: unknown): FaultKind | null {
  if (error instanceof DatabaseUnavailableError) return error.kind;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (SOCKET_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return 'lost';
  if (BUSY_SQLSTATES.has(code) || BUSY_MESSAGES.some((pattern) => pattern.test(message))) return 'busy';
  if (CONFLICT_SQLSTATES.has(code)) return 'conflict';
  return LOST_MESSAGES.some((pattern) => pattern.test(message)) ? 'lost' : null;
}

export function isUnavailable(error: unknown): boolean {
  return faultKind(error) !== null;
}

/** pg's client-side bound on a statement ran out (see `query_timeout`). */
export function isReadTimeout(error: unknown): boolean {
  return /Query read timeout/i.test(String((error as { message?: unknown } | null)?.message ?? ''));
}

/** One line saying what went wrong with the database, for logs and health answers. */
export function faultReason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '57014') return 'a statement ran past its timeout';
  if (code === '55P03') return 'a statement waited past its timeout for a lock';
  if (CONFLICT_SQLSTATES.has(code)) return 'a replica cancelled a statement for a change it was replaying';
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0] : String(error);
  return code && !message?.includes(code) ? `${code} ${message}` : (message ?? 'unknown error');
}

/** The error as the read path reports it: a database fault as DatabaseUnavailableError, anything else as it is. */
export function classify(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error;
  const kind = faultKind(error);
  return kind ? new DatabaseUnavailableError(`database unavailable: ${faultReason(error)}`, kind) : error;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Why `check` shows the database cannot serve, in one line, or null; within `timeoutMs`. */
export async function healthOf(check: () => Promise<unknown>, timeoutMs: number, what: string): Promise<string | null> {
  try {
    await withTimeout(check(), timeoutMs, what);
    return null;
  } catch (error) {
    return error instanceof DatabaseUnavailableError ? error.message : `${what}: ${faultReason(error)}`;
  }
}
