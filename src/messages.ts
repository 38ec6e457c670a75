// Failures told in one line, for operators: never a stack trace, never more than the first line of a message.

/** The first non-blank line of an error's message (or of a text). */
export function firstLine(error: unknown): string {
  const text = String((error as Error)?.message ?? error);
  return (text.split('\n').find((line) => line.trim() !== '') ?? text).trim();
}

type ErrorClass = new (...args: never[]) => Error;

/**
 * One line for a failure: the message as it is for the expected kinds (their messages are written for operators);
 * PostgreSQL's own message when Prisma wraps a database error; otherwise "unexpected error: " and the first line.
 */
export function describeFailure(error: unknown, expected: readonly ErrorClass[] = []): string {
  if (expected.some((kind) => error instanceof kind)) return (error as Error).message;
  const message = String((error as Error)?.message ?? error);
  const inner = /Message: `([^`]*)`/.exec(message)?.[1];
  if (inner !== undefined) return `database error: ${firstLine(inner)}`;
  const fromDatabase = /Raw query failed|Transaction|prisma/i.test(message) || (error as { code?: unknown })?.code;
  return `${fromDatabase ? 'database error' : 'unexpected error'}: ${firstLine(message)}`;
}
