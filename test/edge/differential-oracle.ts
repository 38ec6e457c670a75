// The rule the edge differential test (differential.test.ts) holds Varnish to: an answer through the edge is the
// one an instance gives directly at that moment, in status, media type and decoded body; a 304 only where the
// other side's current representation carries the tag asked for; a page drawn at random compared by its shape.
// And the exchange itself: one request over its own connection, an event stream read only to its opening.
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { HttpRequest } from './differential-model.js';

export interface Exchange {
  status: number;
  /** Both Transfer-Encoding and Content-Length: RFC 9112 6.1 forbids it, and Varnish answers 503 to it. */
  framingConflict: boolean;
  headers: Record<string, string>;
  /** The body as sent (an event stream: as far as read). */
  body: Buffer;
}

/** How far an event stream is read: its first block (a subscription's opening) or its first event. */
export type StreamRead = 'first-block' | 'first-event';

const blocks = (text: string) => text.split('\n\n').slice(0, -1);

function readEnough(text: string, read: StreamRead): boolean {
  const done = blocks(text);
  return read === 'first-block' ? done.length > 0 : done.some((block) => !block.startsWith(':'));
}

/** Sends the request on a connection of its own; an event stream is cut once read far enough (or after `ms`). */
export function exchange(base: string, req: HttpRequest, read: StreamRead, ms = 10_000): Promise<Exchange> {
  const target = new URL(base);
  return new Promise((resolve, reject) => {
    let answered: Exchange | undefined;
    const timer = setTimeout(() => {
      outgoing.destroy();
      if (answered) resolve(answered);
      else reject(new Error(`no answer in ${ms} ms to ${req.method} ${req.path} at ${base}`));
    }, ms);
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.path,
        headers: req.headers,
        agent: false,
        // An answer with both Transfer-Encoding and Content-Length is read (and reported), not refused.
        insecureHTTPParser: true,
      },
      (response) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const chunks: Buffer[] = [];
        const stream = (headers['content-type'] ?? '').startsWith('text/event-stream');
        const framingConflict = 'transfer-encoding' in headers && 'content-length' in headers;
        answered = { status: response.statusCode ?? 0, framingConflict, headers, body: Buffer.alloc(0) };
        const finish = () => {
          clearTimeout(timer);
          resolve({ ...(answered as Exchange), body: Buffer.concat(chunks) });
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          (answered as Exchange).body = Buffer.concat(chunks);
          if (stream && readEnough(Buffer.concat(chunks).toString('utf8'), read)) {
            finish();
            outgoing.destroy();
          }
        });
        response.on('end', finish);
        response.on('error', finish);
      },
    );
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      if (answered) resolve(answered);
      else reject(error);
    });
    if (req.body !== undefined) outgoing.write(req.body);
    outgoing.end();
  });
}

/** The body decoded from its Content-Encoding (yoga's event streams say `none`). */
export function decoded(exchange: Exchange): string {
  const coding = exchange.headers['content-encoding'];
  if (!coding || coding === 'none' || coding === 'identity' || exchange.body.length === 0) {
    return exchange.body.toString('utf8');
  }
  if (coding === 'br') return brotliDecompressSync(exchange.body).toString('utf8');
  if (coding === 'gzip') return gunzipSync(exchange.body).toString('utf8');
  throw new Error(`unknown Content-Encoding ${coding}`);
}

/** An event stream's blocks as read, up to where the read stopped (the rest depends on when it was cut). */
function streamPrefix(text: string, read: StreamRead): string {
  const done = blocks(text);
  const upTo = read === 'first-block' ? 1 : done.findIndex((block) => !block.startsWith(':')) + 1;
  return done.slice(0, upTo > 0 ? upTo : done.length).join('\n\n');
}

/** The JSON payloads of a body: itself, a multipart answer's parts, or an event stream's data lines. */
function payloads(text: string, type: string): string[] {
  if (type.startsWith('multipart/')) {
    return text
      .split(/\r\n---/)
      .map((part) => part.split('\r\n\r\n')[1]?.trim() ?? '')
      .filter((part) => part.startsWith('{'));
  }
  if (type.startsWith('text/event-stream')) {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => line.slice(6));
  }
  return [text];
}

/**
 * A page drawn at random, made comparable: its count, how many results and which fields they have; not which
 * packages, nor their values (one package's field may be null where another's is not).
 */
function shapeOf(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    const fields = new Set(value.flatMap((item) => (item && typeof item === 'object' ? Object.keys(item) : [])));
    return { length: value.length, fields: [...fields].sort() };
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v, k)]));
  }
  return key === 'count' ? value : 'value';
}

function shape(text: string, type: string): string {
  return payloads(text, type)
    .map((payload) => {
      try {
        return JSON.stringify(shapeOf(JSON.parse(payload)));
      } catch {
        return payload;
      }
    })
    .join('\n');
}

/** The seed a page drawn at random was drawn with (GraphQL `seed`, v2 `next` link), or null when it shows none. */
export function drawnSeed(exchange: Exchange): string | null {
  if (exchange.status !== 200) return null;
  const text = decoded(exchange);
  return /"seed":(-?\d+)/.exec(text)?.[1] ?? /[?&]seed=(-?\d+)/.exec(text)?.[1] ?? null;
}

const mediaType = (exchange: Exchange) => (exchange.headers['content-type'] ?? '').toLowerCase().replace(/\s+/g, '');
/** An ETag without weakness or its coding's suffix: the kept answer it names (src/cache/conditional.ts). */
const answerTag = (tag: string | undefined) =>
  tag
    ?.trim()
    .replace(/^W\//, '')
    .replace(/-(br|gzip)"$/, '"');

export interface Compared {
  /** For a page drawn at random: the shapes, not the bytes. */
  seedless: boolean;
  read: StreamRead;
  /** If-None-Match as sent to both. */
  ifNoneMatch?: string;
}

/** What differs between the edge's answer and the instance's, or null. */
export function difference(edge: Exchange, origin: Exchange, how: Compared): string | null {
  if (edge.status !== origin.status) {
    const [full, notModified] = edge.status === 304 ? [origin, edge] : [edge, origin];
    // A 304 on one side and a 200 on the other: the tag asked for names the other side's current answer in
    // another coding (Varnish gzips and gunzips by itself), or the 304 is stale.
    const justified =
      notModified.status === 304 &&
      full.status === 200 &&
      how.ifNoneMatch !== undefined &&
      answerTag(how.ifNoneMatch) === answerTag(full.headers.etag);
    if (!justified) {
      const tags = `edge ETag ${edge.headers.etag}, origin ETag ${origin.headers.etag}, If-None-Match ${how.ifNoneMatch}`;
      return `status ${edge.status} at the edge, ${origin.status} at the origin (${tags})`;
    }
    return null;
  }
  if (edge.status === 304) return null;
  if (mediaType(edge) !== mediaType(origin)) {
    return `Content-Type ${edge.headers['content-type']} at the edge, ${origin.headers['content-type']} at the origin`;
  }
  const type = mediaType(origin);
  let [a, b] = [decoded(edge), decoded(origin)];
  if (type.startsWith('text/event-stream')) [a, b] = [streamPrefix(a, how.read), streamPrefix(b, how.read)];
  if (how.seedless) [a, b] = [shape(a, type), shape(b, type)];
  if (a !== b) return `bodies differ: edge ${a.slice(0, 300)} / origin ${b.slice(0, 300)}`;
  return null;
}

/** The private values an anonymous answer holds (compared as a JSON string, or escaped in JSON text). */
export function leaked(text: string, privateValues: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const value of privateValues) {
    if (text.includes(`"${value}"`) || text.includes(`\\"${value}\\"`) || (value.includes('@') && text.includes(value)))
      found.push(value);
  }
  return found;
}
