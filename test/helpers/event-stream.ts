// A `listingChanged` subscriber over real HTTP (node:http, as a storefront's EventSource or fetch would be): the
// status, and the stream's events as they come, read from the raw bytes of the body.
import { type Agent, request } from 'node:http';

export const LISTING_CHANGED = 'subscription { listingChanged { version count changedAt } }';

export interface StreamEvent {
  /** `next`, `complete`, or `heartbeat` for a `:` comment. */
  event: string;
  data: string;
  at: number;
}

export interface Subscriber {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as far as read, when the answer is not a stream (a refusal). */
  body(): string;
  events: StreamEvent[];
  /** Resolves when the server ends the stream (or the connection goes). */
  ended: Promise<void>;
  /** Resolves with the first event of this kind from index `from` on, or rejects after `ms`. */
  waitFor(event: string, ms: number, from?: number): Promise<StreamEvent>;
  close(): void;
}

/** Opens the subscription (from `localAddress`, e.g. 127.0.0.2, to stand for another client); resolves once the answer's headers are in. */
export function subscribe(
  base: string,
  options: { agent?: Agent; accept?: string; query?: string; localAddress?: string } = {},
): Promise<Subscriber> {
  const url = new URL(base);
  const path = `/graphql?query=${encodeURIComponent(options.query ?? LISTING_CHANGED)}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        agent: options.agent ?? false,
        ...(options.localAddress && { localAddress: options.localAddress }),
        headers: { accept: options.accept ?? 'text/event-stream' },
      },
      (response) => {
        let text = '';
        const events: StreamEvent[] = [];
        const waiters = new Set<() => void>();
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          let end = text.indexOf('\n\n');
          while (end >= 0 && (response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            const fields = Object.fromEntries(
              block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
            );
            const heartbeat = block.startsWith(':');
            events.push({
              event: heartbeat ? 'heartbeat' : String(fields.event ?? '').trim(),
              data: String(fields.data ?? '').trim(),
              at: performance.now(),
            });
            end = text.indexOf('\n\n');
          }
          for (const waiter of waiters) waiter();
        });
        const ended = new Promise<void>((done) => {
          response.once('end', done);
          response.once('close', done);
          response.once('error', () => done());
        });
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: () => text,
          events,
          ended,
          waitFor(event, ms, from = 0) {
            return new Promise((found, fail) => {
              const check = () => {
                const hit = events.slice(from).find((e) => e.event === event);
                if (!hit) return false;
                clearTimeout(timer);
                waiters.delete(check);
                found(hit);
                return true;
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`no "${event}" event within ${ms} ms: ${JSON.stringify(events)}`));
              }, ms);
              if (!check()) waiters.add(check);
            });
          },
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The `listingChanged` payloads of a subscriber's `next` events. */
export function changes(subscriber: Subscriber): { version: string; count: number; changedAt: string }[] {
  return subscriber.events
    .filter((e) => e.event === 'next')
    .map((e) => (JSON.parse(e.data) as { data: { listingChanged: never } }).data.listingChanged);
}
