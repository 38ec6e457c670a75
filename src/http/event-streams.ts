// GraphQL subscriptions over Server-Sent Events, written as graphql-yoga writes them (GraphQL over SSE, distinct
// connections mode: one subscription per request, `Accept: text/event-stream`): a `:` comment at once, then
// `event: next` with each result and `event: complete` at the end. Yoga's own processor has its heartbeat fixed
// at 12 s (300 ms under NODE_ENV=test) and keeps no account of its streams; this one replaces it for
// subscriptions, so that
// - at most SSE_MAX_CONNECTIONS streams are open at once: past it a 503, and the subscription never starts;
// - at most SSE_MAX_PER_CALLER of them are one caller's (its API key, else its address: `rateKey`): past it a 429,
//   and the subscription never starts, so one caller cannot take the room the instance has for everyone;
// - one timer sends the heartbeat (a `:` comment) to every open stream each HEARTBEAT_MS, so proxies and
//   browsers see traffic on a quiet stream;
// - a stop ends every stream with `event: complete` (closeAll), so the server's drain has nothing to wait for,
//   and refuses new ones from then on.
// A stream ends when its client leaves, and its subscription with it (the feed stops being listened to).
// Nothing here holds a database connection or a request deadline: a subscription is not an execution.
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { NOT_SHARED } from './cache-headers.js';
import type { Caller, ServerContext } from './callers.js';
import { type Refusal, refusalResponse } from './refusals.js';
import { GRAPHQL_PATH } from './routes.js';

/** A comment line every this often on every open stream (15 s: below the 30-60 s idle cut of common proxies). */
export const HEARTBEAT_MS = 15_000;
/** What a client refused for want of room is told to wait. */
const RETRY_AFTER_SECONDS = 5;

export interface EventStreamOptions {
  /** Streams open at once, at most (SSE_MAX_CONNECTIONS). */
  max: number;
  /** Streams one caller may hold open at once (SSE_MAX_PER_CALLER); 0 or unset: no bound of its own. */
  perCaller?: number;
  heartbeatMs?: number;
  logger: Pick<Logger, 'info'>;
}

export interface EventStreams {
  /** The plugin, counting each caller's streams as `callerOf` names the caller. */
  plugin(callerOf: (request: Request, server?: ServerContext) => Caller): Plugin;
  /** Streams open now. */
  open(): number;
  /** Ends every open stream with `event: complete` and refuses new ones from now on (the server is stopping). */
  closeAll(): void;
}

interface Stream {
  /** The caller's rate key. */
  caller: string;
  controller: ReadableStreamDefaultController<Uint8Array>;
  iterator: AsyncIterator<ExecutionResult>;
  opened: number;
  events: number;
}

/** What is used of the fetch API yoga hands a result processor. */
type Fetch = { Response: typeof Response; ReadableStream: typeof ReadableStream };

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(':\n\n');
const COMPLETE = encoder.encode('event: complete\ndata:\n\n');

const isAsyncIterable = (value: unknown): value is AsyncIterable<ExecutionResult> =>
  typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';

/** An error as the client reads it: without the extensions meant for the server (`http`, `unexpected`). */
function wireError(error: GraphQLError) {
  const { http: _http, unexpected: _unexpected, ...extensions } = error.extensions ?? {};
  return { ...error.toJSON(), extensions: Object.keys(extensions).length > 0 ? extensions : undefined };
}

function nextEvent(result: ExecutionResult): Uint8Array {
  const { extensions: _extensions, ...rest } = result;
  const wire = result.errors ? { ...rest, errors: result.errors.map(wireError) } : rest;
  return encoder.encode(`event: next\ndata: ${JSON.stringify(wire)}\n\n`);
}

export function createEventStreams(options: EventStreamOptions): EventStreams {
  const { max, perCaller = 0, heartbeatMs = HEARTBEAT_MS, logger } = options;
  const streams = new Set<Stream>();
  /** Open streams by caller (callers with none are not kept). */
  const held = new Map<string, number>();
  let closing = false;
  let heartbeat: NodeJS.Timeout | undefined;

  function beat(): void {
    for (const stream of streams) {
      // null: the stream has errored; 0 or less: the client is not reading, nothing more is queued for it.
      if ((stream.controller.desiredSize ?? 0) > 0) stream.controller.enqueue(HEARTBEAT);
    }
  }

  /** Takes the stream out (once), stops its subscription, and says how it ended. */
  function end(stream: Stream, how: 'completed' | 'client left' | 'server stopping' | 'failed'): void {
    if (!streams.delete(stream)) return;
    const left = (held.get(stream.caller) ?? 1) - 1;
    if (left > 0) held.set(stream.caller, left);
    else held.delete(stream.caller);
    if (streams.size === 0) {
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
    if (how !== 'client left' && how !== 'failed') {
      try {
        stream.controller.enqueue(COMPLETE);
        stream.controller.close();
      } catch {
        // already closed or errored: nothing more can be written
      }
    }
    void Promise.resolve(stream.iterator.return?.()).catch(() => {});
    const seconds = Math.round((performance.now() - stream.opened) / 100) / 10;
    logger.info({ path: GRAPHQL_PATH, events: stream.events, seconds, how }, 'event stream ended');
  }

  function respond(
    results: AsyncIterable<ExecutionResult>,
    request: Request,
    fetchAPI: Fetch,
    caller: string,
  ): Response {
    const iterator = results[Symbol.asyncIterator]();
    let stream: Stream | undefined;
    const body = new fetchAPI.ReadableStream<Uint8Array>({
      // Called at once, as the stream is made: the stream is counted before the next request is looked at.
      start(controller) {
        stream = { caller, controller, iterator, opened: performance.now(), events: 0 };
        streams.add(stream);
        held.set(caller, (held.get(caller) ?? 0) + 1);
        heartbeat ??= setInterval(beat, heartbeatMs).unref();
        // At once: some clients see no headers until the first bytes of the body.
        controller.enqueue(HEARTBEAT);
      },
      async pull(controller) {
        const current = stream as Stream;
        try {
          const { value, done } = await iterator.next();
          if (!streams.has(current)) return; // ended meanwhile (the client left, the server stops)
          if (value != null) {
            current.events++;
            controller.enqueue(nextEvent(value));
          }
          if (done) end(current, 'completed');
        } catch (error) {
          end(current, 'failed');
          controller.error(error);
        }
      },
      cancel() {
        if (stream) end(stream, 'client left');
      },
    });
    // The client gone before the body is read through (whatever the server adapter does with the stream).
    request.signal?.addEventListener('abort', () => stream && end(stream, 'client left'), { once: true });
    return new fetchAPI.Response(body, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': NOT_SHARED,
        connection: 'keep-alive',
        // nginx and the like would otherwise hold events back to fill a buffer.
        'x-accel-buffering': 'no',
      },
    });
  }

  /** Why a stream for this caller is refused now (null: it is not). */
  function refusal(caller: string): Refusal | null {
    const retry = { 'retry-after': String(RETRY_AFTER_SECONDS) };
    if (closing) {
      const message = 'The server is stopping: subscribe again, to another instance.';
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message, headers: retry };
    }
    if (perCaller > 0 && (held.get(caller) ?? 0) >= perCaller) {
      const message = `Too many open subscriptions from this client (SSE_MAX_PER_CALLER, ${perCaller}): close one, or try again later.`;
      return { status: 429, code: 'RATE_LIMITED', message, headers: retry };
    }
    if (streams.size >= max) {
      const message = `Too many open subscriptions on this instance (SSE_MAX_CONNECTIONS, ${max}); try again shortly.`;
      return { status: 503, code: 'SERVICE_UNAVAILABLE', message, headers: retry };
    }
    return null;
  }

  function refuse(results: AsyncIterable<ExecutionResult>, request: Request, fetchAPI: Fetch, why: Refusal) {
    // Never started (no event listened for), but returned so that nothing of it stays.
    void Promise.resolve(results[Symbol.asyncIterator]().return?.()).catch(() => {});
    return refusalResponse(fetchAPI.Response, request, GRAPHQL_PATH, why);
  }

  const plugin = (callerOf: (request: Request, server?: ServerContext) => Caller): Plugin => ({
    // After yoga's own processors (its plugins come first): a subscription yoga would stream as events is
    // streamed by this one instead. One it would refuse (406, no acceptable media type) stays refused.
    onResultProcess({ request, result, resultProcessor, setResultProcessor, serverContext }) {
      if (!resultProcessor || !isAsyncIterable(result)) return;
      const caller = callerOf(request, serverContext as ServerContext).rateKey;
      setResultProcessor((results, fetchAPI) => {
        const stream = results as AsyncIterable<ExecutionResult>;
        const why = refusal(caller);
        return why ? refuse(stream, request, fetchAPI, why) : respond(stream, request, fetchAPI, caller);
      }, 'text/event-stream');
    },
  });

  return {
    plugin,
    open: () => streams.size,
    closeAll() {
      closing = true;
      for (const stream of [...streams]) end(stream, 'server stopping');
    },
  };
}
