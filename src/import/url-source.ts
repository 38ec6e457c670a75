// An import source on the legacy service itself: its base address or the list's address, read page by page
// (with `follow`, along the pages' `next` links, at most `limitPages` pages). Each page must be a v2 envelope.
import { firstLine } from '../messages.js';
import { LISTING_PATH as LIST_PATH } from '../v2/path.js';
import {
  checkEnvelope,
  DEFAULT_TIMEOUT_MS,
  isUrl,
  longerThan,
  maxLineBytesOf,
  type Source,
  SourceError,
  type SourceOptions,
} from './source.js';

/** The list's address: a base address gets the list path appended; the list's own address is kept. */
export function listUrl(spec: string): string {
  const url = new URL(spec);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith(LIST_PATH.slice(0, -1)) ? `${path}/` : `${path}${LIST_PATH}`;
  return url.toString();
}

/** The answer's text, refused once it is longer than `maxBytes`: a page is held whole to be parsed. */
async function boundedText(response: Response, url: string, maxBytes: number): Promise<string> {
  const tooLong = () => new SourceError(`${url}: the answer is ${longerThan(maxBytes)}`);
  if (Number(response.headers.get('content-length')) > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLong();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
    size += read.value.length;
    if (size > maxBytes) {
      await reader?.cancel().catch(() => {});
      throw tooLong();
    }
    chunks.push(read.value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks)); // as response.text() decodes: a BOM is dropped
}

async function fetchPage(url: string, timeoutMs: number, maxBytes: number): Promise<Record<string, unknown>> {
  const seconds = `${timeoutMs / 1000} s`;
  const failure = (error: unknown) => {
    const e = error as Error & { cause?: NodeJS.ErrnoException };
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      return new SourceError(`${url}: no answer within ${seconds}`);
    const cause = e.cause ? `${e.cause.code ?? ''} ${firstLine(e.cause)}`.trim() : firstLine(e);
    return new SourceError(`${url}: cannot be reached (${cause})`);
  };
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw failure(error);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new SourceError(
      `${url}: answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    );
  }
  try {
    body = await boundedText(response, url, maxBytes);
  } catch (error) {
    throw error instanceof SourceError ? error : failure(error);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    const type = response.headers.get('content-type') ?? 'none';
    throw new SourceError(
      `${url}: the answer is not JSON (content-type ${type}, body starts ${JSON.stringify(body.slice(0, 40))})`,
    );
  }
  checkEnvelope(value, url);
  return value as Record<string, unknown>;
}

export function urlSource(spec: string, options: SourceOptions): Source {
  let done = 0;
  let total = 0;
  let start: string;
  try {
    start = listUrl(spec);
  } catch {
    throw new SourceError(`${spec}: not a valid URL`);
  }
  return {
    label: spec,
    async *records() {
      const visited = new Set<string>();
      let next: string | null = start;
      let pages = 0;
      while (next !== null && (options.limitPages === undefined || pages < options.limitPages)) {
        if (visited.has(next)) throw new SourceError(`${next}: the next links lead back to a page already read`);
        visited.add(next);
        const url: string = next;
        const page = await fetchPage(url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxLineBytesOf(options));
        pages++;
        if (typeof page.count === 'number') total = page.count;
        const results = page.results as unknown[];
        for (let i = 0; i < results.length; i++) {
          done++;
          yield { value: results[i], where: url, path: `results[${i}]` };
        }
        next = options.follow && typeof page.next === 'string' ? new URL(page.next, url).toString() : null;
        if (next !== null && !isUrl(next))
          throw new SourceError(`${url}: its next link ${JSON.stringify(page.next)} is not an http(s) URL`);
      }
    },
    progress: () => (total > 0 ? { done, total, unit: 'records' } : null),
  };
}
