// The logger's `err` field takes whatever was thrown or rejected: an Error with its stack, or any other value said
// as text, credentials in URLs redacted either way; logging it never throws (a throw in an error handler would be
// a second fault, uncaught).
import { describe, expect, it } from 'vitest';
import { capturedLog } from './helpers/captured-log.js';

function logged(err: unknown): Record<string, unknown> {
  const { logger, lines } = capturedLog();
  logger.error({ err }, 'failed');
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

describe('the err field of a log line', () => {
  it('says an Error with its stack, its URL credentials redacted', () => {
    const line = logged(new Error('cannot reach postgresql://app:s3cret@db:5432/listing'));
    expect(line.err).toMatchObject({ type: 'Error', message: 'cannot reach postgresql://app:***@db:5432/listing' });
    expect(JSON.stringify(line)).not.toContain('s3cret');
  });

  it('says any other value as text, redacted, without throwing', () => {
    expect(logged('redis://:hunter2@cache:6379 refused').err).toEqual({ message: 'redis://:***@cache:6379 refused' });
    expect(logged(null).err).toEqual({ message: 'null' });
    expect(logged(42).err).toEqual({ message: '42' });
    expect(logged(Symbol('gone')).err).toEqual({ message: 'Symbol(gone)' });
  });
});
