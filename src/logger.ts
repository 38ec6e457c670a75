// The one logger: JSON lines with level names (or readable lines on a terminal), every line of a request carrying
// its request id, and no credentials in any message.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { activeTraceIds } from './tracing.js';

export type { Logger };

/** What is known of the request being handled, for every line logged while handling it. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** `scheme://user:password@host` -> `scheme://user:***@host`, wherever it appears in a text. */
export function redactCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1***@');
}

export interface LoggerOptions {
  level: string;
  /** `auto`: readable on a terminal, JSON otherwise. */
  format?: 'auto' | 'json' | 'pretty';
  /** Where JSON lines go (tests); stdout by default. */
  destination?: NodeJS.WritableStream;
}

export function createLogger({ level, format = 'json', destination: into }: LoggerOptions): Logger {
  const readable = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  // Written synchronously, in this thread: no line is lost when the process exits right after it.
  const destination = readable
    ? pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' })
    : (into ?? pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const request = requestContext.getStore();
        const ids = activeTraceIds();
        return request ? { requestId: request.requestId, ...ids } : (ids ?? {});
      },
      serializers: {
        err: (error: unknown) => {
          // pino's serializer gives anything but an Error back as it is: a string or a number is said as text.
          if (!(error instanceof Error)) return { message: redactCredentials(String(error)) };
          const serialized = pino.stdSerializers.err(error);
          return {
            ...serialized,
            message: redactCredentials(serialized.message),
            stack: serialized.stack && redactCredentials(serialized.stack),
          };
        },
      },
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((arg) => (typeof arg === 'string' ? redactCredentials(arg) : arg)) as Parameters<typeof method>,
          );
        },
      },
    },
    destination,
  );
}

/** A logger that writes nothing (tests, tools). */
export const silentLogger = (): Logger => createLogger({ level: 'silent' });
