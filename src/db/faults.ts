// Database faults a client should hear about as "try again shortly" (503), not as a server error (500): the
// server cannot be reached, the connection broke, a statement ran past its timeout or waited past it on a lock.

/** The database cannot answer now; the message says why in one line, without secrets. */
export class DatabaseUnavailableError extends Error {}

// Node's socket errors, and PostgreSQL's SQLSTATEs for the same: connection exceptions (08xxx), shutdown and
// start-up (57P01-57P03), too many connections (53300), query_canceled (57014, the statement timeout) and
// lock_not_available (55P03).
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const SQLSTATES = new Set(['57014', '57P01', '57P02', '57P03', '53300', '55P03']);
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Query read timeout/i,
  /Client has encountered a connection error/i,
  /Connection ended unexpectedly/i,
  /Cannot use a pool after calling end/i,
];

export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (SOCKET_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
  return typeof e?.message === 'string' && MESSAGES.some((pattern) => pattern.test(e.message as string));
}

/** One line saying what went wrong with the database, for logs and health answers. */
export function faultReason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '57014') return 'a statement ran past its timeout';
  if (code === '55P03') return 'a statement waited past its timeout for a lock';
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0] : String(error);
  return code && !message?.includes(code) ? `${code} ${message}` : (message ?? 'unknown error');
}

/** The error as the read path reports it: unavailability as DatabaseUnavailableError, anything else as it is. */
export function classify(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError || !isUnavailable(error)) return error;
  return new DatabaseUnavailableError(`database unavailable: ${faultReason(error)}`);
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
