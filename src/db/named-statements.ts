// Whether a database's pool prepares statements by name. Off from the start behind a declared pooler
// (DATABASE_POOLER=transaction); otherwise on until a statement sent with a name fails the way only a pooler in
// transaction mode makes it fail: the name was prepared on another server connection than the one the pooler
// handed this transaction (26000), or another client prepared it on this one (42P05). Then names are off for that
// pool for the rest of the process's life, the operator is told once, and the statement is sent again unnamed
// (every statement of the read path only reads, so sending it again is safe).

// invalid_sql_statement_name, duplicate_prepared_statement.
const POOLER_SQLSTATES = new Set(['26000', '42P05']);

/** What /metrics says of one database's names. */
export interface PoolerStatus {
  /** `primary`, `replica 1`, ... */
  role: string;
  /** Whether a pooler in transaction mode was found in front of it (its names then turned off). */
  detected: boolean;
}

export interface NamedStatements {
  /** Whether statements are prepared by name now. */
  readonly on: boolean;
  /** Whether a pooler in transaction mode was found where none was declared. */
  readonly detected: boolean;
  /**
   * Told the error a statement sent with a name met: true when it says a pooler in transaction mode stands in
   * between (names are off from then on, and the statement can be sent again unnamed).
   */
  refused(error: unknown): boolean;
}

/** `onDetected`: told once, with one line for the operator, when names are turned off. */
export function namedStatements(role: string, on: boolean, onDetected: (line: string) => void): NamedStatements {
  let named = on;
  let detected = false;
  return {
    get on() {
      return named;
    },
    get detected() {
      return detected;
    },
    refused(error) {
      const e = error as { code?: unknown; message?: unknown } | null;
      if (typeof e?.code !== 'string' || !POOLER_SQLSTATES.has(e.code)) return false;
      if (named) {
        named = false;
        detected = true;
        onDetected(
          `${role}: a statement prepared by name failed (${e.code} ${String(e.message)}), as statements do behind ` +
            'a pooler in transaction mode (PgBouncer), which hands each transaction any of its server connections ' +
            'while a name lives on one; statements are sent unnamed from now on. Set DATABASE_POOLER=transaction ' +
            'for this database.',
        );
      }
      return true;
    },
  };
}
