// `npm run check:v2 -- <url> [--pages N] [--seed S] [--quiet]`: checks a running server's v2 path against the
// contract: the spec's record shapes (src/v2/contract.ts, the same schemas the import validates with), DRF's
// pagination links, the seeded order, methods, bad input and Accept negotiation. It walks every page by its
// `next` links (or N), prints `ok`/`FAIL` per check and ends with `N passed, N failed`; exit 0 when all hold.
//
// Adapted from the marketplace's shared contract checker (check.mjs, beside its fields.mjs): the same checks in
// the same order, with the record checks derived from the project's own contract instead of a second field table.
import { describeProblem, PackageValidator } from '../import/validate.js';
import { LISTING_PATH } from '../v2/path.js';
import { readArguments } from './arguments.js';
import { expectedLink, type Fetched, fetchPage, query } from './check-v2-http.js';

const USAGE = 'usage: npm run check:v2 -- <url> [--pages N] [--seed S] [--quiet]';
const PAGE = 50;
const MAX_PAGE = 100;

function options() {
  try {
    const { values, positionals } = readArguments(
      {
        options: {
          pages: { type: 'string', default: '1000000' },
          seed: { type: 'string', default: '12345' },
          quiet: { type: 'boolean', default: false },
        },
        allowPositionals: true,
      },
      USAGE,
    );
    const [url = 'http://127.0.0.1:4000', ...rest] = positionals;
    if (rest.length > 0 || !/^https?:\/\//.test(url))
      throw new Error(`one http(s) URL, got ${positionals.join(' ')} (${USAGE})`);
    if (!/^\d+$/.test(values.pages) || !/^-?\d+$/.test(values.seed))
      throw new Error(`--pages and --seed are whole numbers (${USAGE})`);
    return {
      base: url.replace(/\/$/, ''),
      maxPages: Number(values.pages),
      seed: Number(values.seed),
      quiet: values.quiet,
    };
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exit(1);
  }
}

const { base, maxPages, seed, quiet } = options();
let passed = 0;
let failed = 0;

function check(name: string, errors: string[]): boolean {
  if (errors.length === 0) {
    passed++;
    if (!quiet) console.log(`ok   ${name}`);
    return true;
  }
  failed++;
  console.log(`FAIL ${name}`);
  for (const e of errors.slice(0, 8)) console.log(`     ${e}`);
  if (errors.length > 8) console.log(`     ... and ${errors.length - 8} more`);
  return false;
}

const get = (q: string, init: RequestInit = {}) =>
  fetchPage(q.startsWith('http') ? q : `${base}${LISTING_PATH}${q}`, init);

function headerErrors(res: Response, where: string): string[] {
  const e: string[] = [];
  const ct = res.headers.get('content-type') ?? '';
  if (ct !== 'application/json') e.push(`${where}: Content-Type is '${ct}', expected exactly application/json`);
  const vary = (res.headers.get('vary') ?? '').split(',').map((s) => s.trim().toLowerCase());
  if (!vary.includes('accept')) e.push(`${where}: Vary does not include Accept (got '${res.headers.get('vary')}')`);
  const allow = res.headers.get('allow');
  if (allow !== 'GET, HEAD, OPTIONS') e.push(`${where}: Allow is '${allow}', expected 'GET, HEAD, OPTIONS'`);
  return e;
}

/** Every record of a page against the contract, and listed (status 1). */
function recordErrors(results: unknown[]): string[] {
  const validator = new PackageValidator(null);
  return results.flatMap((record, i) => {
    const { problems } = validator.validate(record);
    const listed =
      (record as { status?: unknown })?.status === 1 ? [] : [`results[${i}].status: expected 1 on a listed package`];
    return [...problems.map((p) => describeProblem(p, `results[${i}]`)), ...listed];
  });
}

function pageErrors(r: Fetched, offset: number, limit: number): string[] {
  if (r.res.status !== 200) return [`status ${r.res.status} for ${r.url}: ${r.text.slice(0, 200)}`];
  const b = r.body as { count: number; next: string | null; previous: string | null; results: unknown[] } | undefined;
  if (!b || typeof b !== 'object') return [`body is not a JSON object: ${r.text.slice(0, 120)}`];
  const e: string[] = [];
  if (Object.keys(b).join() !== 'count,next,previous,results')
    e.push(`envelope keys are ${JSON.stringify(Object.keys(b))}, expected count,next,previous,results in that order`);
  if (!Number.isInteger(b.count) || b.count < 0) e.push(`count is ${b.count}`);
  if (!Array.isArray(b.results)) return [...e, 'results is not an array'];
  const expectLen = Math.max(0, Math.min(limit, b.count - offset));
  if (b.results.length !== expectLen)
    e.push(
      `results has ${b.results.length} records, expected ${expectLen} (count ${b.count}, offset ${offset}, limit ${limit})`,
    );
  e.push(...recordErrors(b.results));
  for (const dir of ['next', 'previous'] as const) {
    const want = expectedLink(r.url, { offset, limit, count: b.count, dir });
    if (b[dir] !== want)
      e.push(
        `${dir} link at offset ${offset} (limit ${limit}, count ${b.count}): got ${JSON.stringify(b[dir])}, expected ${JSON.stringify(want)}`,
      );
  }
  return e;
}

const ids = (r: Fetched) =>
  ((r.body as { results?: { identifier: string }[] })?.results ?? []).map((p) => p.identifier).join();
const bodyOf = (r: Fetched) => r.body as { count: number; next: string | null; results: unknown[] } | undefined;

async function main(): Promise<void> {
  // 1. First page: headers, envelope, every record, links.
  const first = await get(query({ format: 'api', limit: PAGE, offset: 0, seed }));
  check('GET first page: headers', headerErrors(first.res, 'GET'));
  if (!check('GET first page: envelope, records and links', pageErrors(first, 0, PAGE))) return;
  const count = bodyOf(first)?.count ?? 0;

  // 2. Walk the next links: every page valid, no record twice, every record once.
  const seen = new Map<string, number>();
  const crawl: string[] = [];
  let page = first;
  let offset = 0;
  let pages = 0;
  for (;;) {
    pages++;
    if (page !== first) crawl.push(...pageErrors(page, offset, PAGE).map((m) => `offset ${offset}: ${m}`));
    ids(page)
      .split(',')
      .filter(Boolean)
      .forEach((id, i) => {
        if (seen.has(id)) crawl.push(`record ${id} at offset ${offset + i} was already on offset ${seen.get(id)}`);
        else seen.set(id, offset + i);
      });
    const next = bodyOf(page)?.next;
    if (!next || pages >= maxPages || crawl.length > 20) break;
    offset += PAGE;
    page = await get(next);
  }
  const complete = !bodyOf(page)?.next;
  if (complete && seen.size !== count) crawl.push(`walked ${seen.size} distinct records, count says ${count}`);
  check(`walk ${pages} page(s) by next links${complete ? ' to the end' : ''}: valid pages, no duplicates`, crawl);

  // 3. The seed: the same seed the same order, another seed another; without one, the links carry the one drawn.
  const again = await get(query({ format: 'api', limit: PAGE, offset: 0, seed }));
  check(
    'same seed, same order',
    ids(again) === ids(first) ? [] : ['two requests with the same seed returned different orders'],
  );
  if (count >= 5) {
    const other = await get(query({ format: 'api', limit: PAGE, offset: 0, seed: seed + 1 }));
    check(
      'another seed, another order',
      ids(other) !== ids(first) ? [] : [`seeds ${seed} and ${seed + 1} gave the same order`],
    );
  }
  const noSeed = await get(query({ format: 'api', limit: PAGE, offset: 0 }));
  const nextOf = bodyOf(noSeed)?.next;
  const pinned = nextOf ? new URL(nextOf).searchParams.get('seed') : null;
  const noSeedErr: string[] = [];
  if (count > PAGE && (pinned === null || !/^-?\d+$/.test(pinned))) {
    noSeedErr.push(`without a seed, the next link should carry the seed that ordered this page; it has seed=${pinned}`);
  } else {
    const asIfSeeded = pinned === null ? noSeed.url : `${noSeed.url}&seed=${pinned}`;
    noSeedErr.push(...pageErrors({ ...noSeed, url: asIfSeeded }, 0, PAGE));
    if (pinned !== null) {
      const replay = await get(query({ format: 'api', limit: PAGE, offset: 0, seed: pinned }));
      if (ids(replay) !== ids(noSeed))
        noSeedErr.push(`seed=${pinned} from the links does not give the same first page`);
    }
  }
  check('no seed given: a valid page whose links carry the seed that ordered it', noSeedErr);

  // 4. A page in the middle, past the end, odd sizes, the cap, format=json.
  if (count > PAGE) {
    const mid = Math.min(PAGE * 2, Math.floor(count / PAGE) * PAGE);
    check(
      `page at offset ${mid}`,
      pageErrors(await get(query({ format: 'api', limit: PAGE, offset: mid, seed })), mid, PAGE),
    );
  }
  const past = await get(query({ format: 'api', limit: PAGE, offset: count + 100, seed }));
  check('offset past the end: 200, empty results, next null', pageErrors(past, count + 100, PAGE));
  const small = await get(query({ format: 'api', limit: 7, offset: 3, seed }));
  check('limit 7 offset 3: links carry limit 7 and step by 7', pageErrors(small, 3, 7));
  const fromFirst = ids(first).split(',').slice(3, 10).join();
  check(
    'limit 7 offset 3 is the same slice of the seeded order',
    count >= 10 && ids(small) !== fromFirst
      ? [`got ${ids(small).slice(0, 80)}..., expected ${fromFirst.slice(0, 80)}...`]
      : [],
  );
  const huge = await get(query({ format: 'api', limit: 100000, offset: 0, seed }));
  const hugeLength = bodyOf(huge)?.results?.length;
  check(
    `limit above the maximum is clamped to ${MAX_PAGE}`,
    huge.res.status === 200 && hugeLength === Math.min(MAX_PAGE, count)
      ? []
      : [`status ${huge.res.status}, ${hugeLength} records`],
  );
  const json = await get(query({ format: 'json', limit: PAGE, offset: 0, seed }));
  check(
    'format=json gives the same JSON page',
    json.res.status === 200 && ids(json) === ids(first) ? [] : [`status ${json.res.status}`],
  );

  // 5. HEAD, OPTIONS, and the methods that are not allowed.
  const head = await get(query({ format: 'api', limit: PAGE, offset: 0, seed }), { method: 'HEAD' });
  check('HEAD: 200, headers, no body', [
    ...(head.res.status === 200 ? [] : [`status ${head.res.status}`]),
    ...headerErrors(head.res, 'HEAD'),
    ...(head.text.length === 0 ? [] : [`HEAD returned ${head.text.length} body characters`]),
  ]);
  const options = await get(query({ format: 'api' }), { method: 'OPTIONS' });
  const meta = options.body as { name?: unknown; renders?: unknown; parses?: unknown } | undefined;
  check('OPTIONS: 200, Allow: GET, HEAD, OPTIONS, JSON body', [
    ...(options.res.status === 200 ? [] : [`status ${options.res.status}`]),
    ...headerErrors(options.res, 'OPTIONS'),
    ...(typeof meta?.name === 'string' && Array.isArray(meta.renders) && Array.isArray(meta.parses)
      ? []
      : [`body is not DRF's metadata shape {name, description, renders, parses}: ${options.text.slice(0, 120)}`]),
  ]);
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    const r = await get(query({ format: 'api' }), {
      method,
      body: method === 'DELETE' ? undefined : '{}',
      headers: { 'content-type': 'application/json' },
    });
    check(`${method}: 405 with Allow and DRF's detail`, [
      ...(r.res.status === 405 ? [] : [`status ${r.res.status}`]),
      ...(r.res.headers.get('allow') === 'GET, HEAD, OPTIONS' ? [] : [`Allow is '${r.res.headers.get('allow')}'`]),
      ...(r.text === `{"detail":"Method \\"${method}\\" not allowed."}` ? [] : [`body is ${r.text.slice(0, 100)}`]),
    ]);
  }

  // 6. Bad input, read as DRF's LimitOffsetPagination reads it: a bad limit is the default, a bad offset 0; a seed
  // that is not an integer is 400 with a JSON detail; an unknown format is 404; never a 5xx.
  const lenient: Record<string, string>[] = [
    { limit: 'abc' },
    { limit: '-1' },
    { limit: '0' },
    { limit: '1.5' },
    { limit: '' },
    { offset: '-5' },
    { offset: 'x' },
    { offset: "0' OR 1=1--" },
  ];
  for (const params of lenient) {
    const r = await get(query({ format: 'api', limit: PAGE, offset: 0, seed, ...params }));
    const e = pageErrors(r, 0, PAGE);
    if (r.res.status === 200 && ids(r) !== ids(first)) e.push('not the same page as the default first page');
    check(`lenient ${JSON.stringify(params)}: read as DRF reads it (limit ${PAGE}, offset 0)`, e);
  }
  for (const params of [{ seed: 'abc' }, { seed: '1e400' }, { seed: '12.5' }]) {
    const r = await get(query({ format: 'api', ...params }));
    const detail = (r.body as { detail?: unknown } | undefined)?.detail;
    check(
      `bad seed ${JSON.stringify(params)}: 400 with a JSON detail`,
      r.res.status === 400 && typeof detail === 'string'
        ? []
        : [`status ${r.res.status}, body ${r.text.slice(0, 120)}`],
    );
  }
  const unknownFormat = await get(query({ format: 'xml' }));
  check(
    'unknown format: 404 {"detail":"Not found."}',
    unknownFormat.res.status === 404 && unknownFormat.text === '{"detail":"Not found."}'
      ? []
      : [`status ${unknownFormat.res.status}, body ${unknownFormat.text.slice(0, 120)}`],
  );
  const emptyFormat = await get(`?format=&limit=${PAGE}&offset=0&seed=${seed}`);
  check(
    'empty format: read as absent, the JSON page',
    emptyFormat.res.status === 200 && ids(emptyFormat) === ids(first)
      ? []
      : [`status ${emptyFormat.res.status}, body ${emptyFormat.text.slice(0, 120)}`],
  );
  const optionsBadFormat = await get(query({ format: 'xml' }), { method: 'OPTIONS' });
  check(
    'a bad format is 404 before the method is looked at (OPTIONS ?format=xml)',
    optionsBadFormat.res.status === 404 ? [] : [`status ${optionsBadFormat.res.status}`],
  );

  // 7. Accept, as DRF's DefaultContentNegotiation: JSON for */* and application/json, 406 otherwise.
  const browser = await get(query({ format: 'api', limit: PAGE, offset: 0, seed }), {
    headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
  });
  check(
    "a browser's Accept (with */*): the JSON page",
    browser.res.status === 200 && ids(browser) === ids(first) ? [] : [`status ${browser.res.status}`],
  );
  for (const accept of ['text/html', 'application/xml']) {
    const r = await get(query({ format: 'api', limit: PAGE, offset: 0, seed }), { headers: { accept } });
    check(`Accept: ${accept}: 406 with DRF's detail`, [
      ...(r.res.status === 406 ? [] : [`status ${r.res.status}`]),
      ...(r.text === '{"detail":"Could not satisfy the request Accept header."}'
        ? []
        : [`body is ${r.text.slice(0, 100)}`]),
      ...headerErrors(r.res, `Accept ${accept}`),
    ]);
  }
}

try {
  await main();
} catch (error) {
  console.log(`FAIL could not reach ${base}: ${(error as Error).message}`);
  failed++;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
