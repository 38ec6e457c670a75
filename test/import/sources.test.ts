// Reading sources: pages, arrays and JSON Lines from files and directories (parsed whole or streamed, with the same
// result), legacy URLs followed by their next links, and a one-line SourceError for everything that goes wrong,
// a line, a streamed record or an answer past IMPORT_MAX_LINE_BYTES included.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { SourceError, type SourceItem, type SourceOptions } from '../../src/import/source.js';
import { listUrl, openSources } from '../../src/import/sources.js';
import { renderJson } from '../../src/rest/render.js';
import { importEdgePackages } from '../fixtures/import-edge-records.js';
import { pageJson, tempDir } from './helpers.js';

const dir = tempDir();
const records = importEdgePackages;
afterAll(() => dir.remove());

function file(name: string, text: string): string {
  const path = join(dir.path, name);
  writeFileSync(path, text);
  return path;
}

async function read(spec: string, options: SourceOptions = {}): Promise<SourceItem[]> {
  const [source] = await openSources([spec], options);
  const items: SourceItem[] = [];
  for await (const item of source?.records() ?? []) items.push(item);
  return items;
}

async function failure(spec: string, options: SourceOptions = {}): Promise<string> {
  try {
    await read(spec, options);
  } catch (error) {
    const message = (error as Error).message;
    expect(error).toBeInstanceOf(SourceError);
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(`${spec} was read without an error`);
}

const STREAMED = { wholeFileLimit: 0 };

describe('file sources', () => {
  it('reads a page, parsed whole or streamed, with the same records and paths', async () => {
    const path = file(
      'page.json',
      `\uFEFF${pageJson(records, 9000, 'http://legacy/v2/local-package-list/?offset=50')}`,
    );
    for (const options of [{}, STREAMED]) {
      const items = await read(path, options);
      expect(items.map((i) => i.path)).toEqual(records.map((_, i) => `results[${i}]`));
      expect(items.map((i) => renderJson(i.value))).toEqual(records.map((r) => renderJson(r)));
      expect(items[0]?.where).toBe(path);
    }
  });

  it('reads a JSON array of records, pretty-printed, whole or streamed', async () => {
    const path = file('records.json', JSON.stringify(records, null, 2));
    for (const options of [{}, STREAMED]) {
      const items = await read(path, options);
      expect(items.map((i) => i.path)).toEqual(records.map((_, i) => `[${i}]`));
      expect(items.map((i) => renderJson(i.value))).toEqual(records.map((r) => renderJson(r)));
    }
  });

  it('reads JSON Lines with CRLF, blank lines and U+2028 inside texts, numbering the lines', async () => {
    const lines = records.map((r) => JSON.stringify(r)); // U+2028 stays raw in JSON.stringify output
    expect(lines.some((l) => l.includes('\u2028'))).toBe(true);
    const path = file('dump.jsonl', `${lines[0]}\r\n\r\n${lines.slice(1).join('\n')}\n`);
    const items = await read(path);
    expect(items.map((i) => i.where)).toEqual(records.map((_, i) => `${path} line ${i === 0 ? 1 : i + 2}`));
    expect(items.map((i) => renderJson(i.value))).toEqual(records.map((r) => renderJson(r)));
    // a .json file whose first key is "identifier" is JSON Lines too
    const json = file('dump-as.json', lines.join('\n'));
    expect((await read(json)).length).toBe(records.length);
  });

  it('reads a directory in name order, numbers as numbers, skipping other files', async () => {
    const pages = join(dir.path, 'pages');
    mkdirSync(pages);
    writeFileSync(join(pages, 'page-10.json'), pageJson(records.slice(2, 3)));
    writeFileSync(join(pages, 'page-2.json'), pageJson(records.slice(1, 2)));
    writeFileSync(join(pages, 'page-1.json'), pageJson(records.slice(0, 1)));
    writeFileSync(join(pages, 'more.ndjson'), `${JSON.stringify(records[3])}\n`);
    writeFileSync(join(pages, 'README.txt'), 'not data');
    writeFileSync(join(pages, '.hidden.json'), 'not data');
    const items = await read(pages);
    expect(items.map((i) => i.where.slice(pages.length + 1))).toEqual([
      'more.ndjson line 1',
      'page-1.json',
      'page-2.json',
      'page-10.json',
    ]);
  });

  it.each([
    [
      'malformed.json',
      '{"count": 1, "next": null, "previous": null, "results": [{"identifier": "a",}]}',
      /malformed\.json: malformed JSON: .*line 1 column/,
    ],
    ['truncated.json', '[{"identifier": "a"', /truncated\.json: malformed JSON/],
    ['empty.json', '  \n', /empty\.json: empty file, expected v2 JSON/],
    [
      'other.json',
      '{"data": []}',
      /other\.json: not a v2 page, a JSON array or JSON Lines of Package records \(its first key is "data"\)/,
    ],
    [
      'no-results.json',
      '{"count": 0}',
      /no-results\.json: expected a v2 page \{count, next, previous, results\} whose results is an array/,
    ],
    ['text.json', 'hello', /text\.json: malformed JSON: it starts with "hello", not \[ or \{/],
    ['bad-line.jsonl', '{"identifier": "a"}\n{oops}\n', /bad-line\.jsonl line 2: malformed JSON/],
  ])('refuses %s with one line naming the file', async (name, text, message) => {
    const path = file(name, text);
    expect(await failure(path)).toMatch(message);
    if (!name.endsWith('.jsonl') && name !== 'empty.json' && name !== 'text.json' && name !== 'other.json') {
      expect(await failure(path, STREAMED)).toMatch(/malformed JSON|expected a v2 page/);
    }
  });

  it('refuses a missing path and an empty directory before reading anything', async () => {
    await expect(openSources([join(dir.path, 'nope.json')])).rejects.toThrow(/nope\.json: no such file or directory$/);
    const empty = join(dir.path, 'empty');
    mkdirSync(empty);
    await expect(openSources([empty])).rejects.toThrow(
      /empty: no \.json, \.jsonl or \.ndjson files in this directory$/,
    );
    await expect(openSources(['ftp://example.com/x'])).rejects.toThrow('only http and https URLs');
  });
});

describe('URL sources', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  let hangingBase: string;
  let hanging: Server;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', base);
      hits.push(`${url.pathname}${url.search}`);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (url.pathname === '/v2/local-package-list/') {
        const next = offset === 0 ? `${base}/v2/local-package-list/?limit=4&offset=4&seed=3` : null;
        response.setHeader('content-type', 'application/json');
        response.end(pageJson(records.slice(offset, offset + 4), records.length, next));
      } else if (url.pathname === '/loop/v2/local-package-list/') {
        response.setHeader('content-type', 'application/json');
        response.end(pageJson([], 0, `${base}/loop/v2/local-package-list/`));
      } else if (url.pathname === '/html/v2/local-package-list/') {
        response.setHeader('content-type', 'text/html');
        response.end('<!doctype html><p>Maintenance</p>');
      } else {
        response.statusCode = 503;
        response.end('{"detail":"down"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    hanging = createServer(() => {}); // never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    hangingBase = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  });

  it('appends the list path to a base address and keeps a list address as given', () => {
    expect(listUrl('https://legacy.example.com')).toBe('https://legacy.example.com/v2/local-package-list/');
    expect(listUrl('https://legacy.example.com/api/')).toBe('https://legacy.example.com/api/v2/local-package-list/');
    expect(listUrl('https://x.test/v2/local-package-list/?seed=4')).toBe(
      'https://x.test/v2/local-package-list/?seed=4',
    );
  });

  it('reads one page without --follow, every page with it, and stops after --limit-pages', async () => {
    expect((await read(base)).length).toBe(4);
    hits.length = 0;
    const all = await read(base, { follow: true });
    expect(all.map((i) => renderJson(i.value))).toEqual(records.map((r) => renderJson(r)));
    expect(all[5]).toMatchObject({
      where: `${base}/v2/local-package-list/?limit=4&offset=4&seed=3`,
      path: 'results[1]',
    });
    expect(hits).toEqual(['/v2/local-package-list/', '/v2/local-package-list/?limit=4&offset=4&seed=3']);
    expect((await read(base, { follow: true, limitPages: 1 })).length).toBe(4);
  });

  it('fails in one line on an HTTP error, a non-JSON answer, no answer, no server, or a loop', async () => {
    expect(await failure(`${base}/gone`)).toBe(
      `${base}/gone/v2/local-package-list/: answered HTTP 503 Service Unavailable`,
    );
    expect(await failure(`${base}/html`)).toBe(
      `${base}/html/v2/local-package-list/: the answer is not JSON (content-type text/html, body starts "<!doctype html><p>Maintenance</p>")`,
    );
    expect(await failure(hangingBase, { timeoutMs: 300 })).toBe(
      `${hangingBase}/v2/local-package-list/: no answer within 0.3 s`,
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(`http://127.0.0.1:${port}`)).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/v2/local-package-list/: cannot be reached \\(ECONNREFUSED`),
    );
    expect(await failure(`${base}/loop`, { follow: true })).toMatch(/the next links lead back to a page already read$/);
  });
});

describe('what a source holds at once (IMPORT_MAX_LINE_BYTES)', () => {
  const max = 64 * 1024;
  const demo = [...generatePackages({ count: 3 })]; // some 9 kB each
  const padded = (record: object, bytes: number) => ({ ...record, padding: 'x'.repeat(bytes) });

  it('refuses a JSON Lines line past the bound, naming it, and reads one at the bound', async () => {
    const bare = JSON.stringify(padded(demo[1] as object, 0));
    const exact = JSON.stringify(padded(demo[1] as object, max - Buffer.byteLength(bare)));
    expect(Buffer.byteLength(exact)).toBe(max);
    const over = JSON.stringify(padded(demo[2] as object, max));
    const path = file('long.jsonl', `${JSON.stringify(demo[0])}\n${exact}\n${over}\n`);
    expect(await failure(path, { maxLineBytes: max })).toBe(
      `${path} line 3: longer than 65,536 bytes (IMPORT_MAX_LINE_BYTES), refused`,
    );
    expect((await read(file('fits.jsonl', `${exact}\n`), { maxLineBytes: max })).length).toBe(1);
  });

  it('streams a file larger than the bound, and refuses a record of it past the bound, naming it', async () => {
    const many = file('many.json', JSON.stringify([...Array(40)].flatMap(() => demo)));
    expect(Buffer.byteLength(readFileSync(many))).toBeGreaterThan(8 * max);
    expect((await read(many, { maxLineBytes: max })).length).toBe(40 * demo.length);
    const big = file('big.json', pageJson([demo[0], padded(demo[1] as object, 4 * max), demo[2]]));
    expect(await failure(big, { maxLineBytes: max })).toBe(
      `${big}: the record at results[1] is longer than 65,536 bytes (IMPORT_MAX_LINE_BYTES), refused`,
    );
  });
  it('refuses a URL whose answer is past the bound, having taken little more of it', async () => {
    let written = 0;
    const endless = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      const block = Buffer.alloc(64 * 1024, ' ');
      response.write('{"count": 1, "next": null, "previous": null, "results": [');
      const more = () => {
        while (written < 64 * 1024 * 1024 && !response.destroyed) {
          written += block.length;
          if (!response.write(block)) return void response.once('drain', more);
        }
        response.end(']}');
      };
      more();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    try {
      expect(await failure(url, { maxLineBytes: 1024 * 1024, timeoutMs: 10_000 })).toBe(
        `${url}/v2/local-package-list/: the answer is longer than 1,048,576 bytes (IMPORT_MAX_LINE_BYTES), refused`,
      );
      expect(written).toBeLessThan(32 * 1024 * 1024);
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  }, 30_000);
});
