// The application's structured logger (JSON lines on stdout).
import { pino } from 'pino';

export function createLogger(level: string) {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}
