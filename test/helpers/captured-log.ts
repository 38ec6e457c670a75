// A logger whose JSON lines a test reads back: `lines` holds each line as written.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

export function capturedLog(level = 'info'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}
