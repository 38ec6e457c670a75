// Steady load for the fleet test: a few clients, each asking one request after another, in turn a v2 page and
// the same page over GraphQL GET, from a small set of pages (so both cached and fresh answers are asked for).
// Every answer is checked (`ask`, which the fleet soak uses too): 200, a whole page, and one listing version: the
// titles of an import carry a mark, so a page with some marked titles and some not mixes two versions.

export interface Outcome {
  /** Date.now() when the request was sent. */
  at: number;
  /** Milliseconds until the whole answer was read (or the request failed). */
  ms: number;
  /** The instance HAProxy says answered (x-served-by), when one did. */
  servedBy?: string;
  ok: boolean;
  mixed: boolean;
  version: 'old' | 'new' | undefined;
  problem?: string;
}

export interface LoadRun {
  outcomes: Outcome[];
}

const LIMIT = 20;

/** A page asked: a GET of `path`, or a POST of `body` (JSON) to it. */
export interface Ask {
  path: string;
  body?: string;
}

function requestPath(n: number): string {
  const seed = 1 + (n % 5);
  const offset = LIMIT * (Math.floor(n / 5) % 6);
  if (n % 2 === 0) return `/v2/local-package-list/?limit=${LIMIT}&offset=${offset}&seed=${seed}`;
  const query = `{ packages(limit: ${LIMIT}, offset: ${offset}, seed: ${seed}) { count results { title } } }`;
  return `/graphql?query=${encodeURIComponent(query)}`;
}

function titlesOf(body: unknown): string[] | undefined {
  const v2 = body as { results?: { title: string }[] };
  if (Array.isArray(v2.results)) return v2.results.map((r) => r.title);
  const graphql = body as { data?: { packages?: { results?: { title: string }[] } }; errors?: unknown };
  if (graphql.errors) return undefined;
  return graphql.data?.packages?.results?.map((r) => r.title);
}

/** Asks for a page and checks the answer: 200, a page of titles, all of one listing version. */
export async function ask(base: string, page: Ask, mark: string): Promise<Outcome> {
  const at = Date.now();
  let servedBy: string | undefined;
  const failed = (problem: string): Outcome => ({
    at,
    ms: Date.now() - at,
    ...(servedBy && { servedBy }),
    ok: false,
    mixed: false,
    version: undefined,
    problem,
  });
  try {
    const response = await fetch(`${base}${page.path}`, {
      headers: { accept: 'application/json', ...(page.body && { 'content-type': 'application/json' }) },
      ...(page.body && { method: 'POST', body: page.body }),
      signal: AbortSignal.timeout(5000),
    });
    servedBy = response.headers.get('x-served-by') ?? undefined;
    const text = await response.text();
    if (response.status !== 200) return failed(`${response.status} ${text.slice(0, 200)}`);
    const titles = titlesOf(JSON.parse(text));
    if (!titles || titles.length === 0) return failed(`no page: ${text.slice(0, 200)}`);
    const marked = titles.filter((title) => title.startsWith(mark)).length;
    const mixed = marked > 0 && marked < titles.length;
    return {
      at,
      ms: Date.now() - at,
      ...(servedBy && { servedBy }),
      ok: !mixed,
      mixed,
      version: marked === 0 ? 'old' : 'new',
      ...(mixed && { problem: 'mixed' }),
    };
  } catch (error) {
    return failed(String(error));
  }
}

export function startLoad(base: string, options: { clients: number; mark: string }) {
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  const clients = Array.from({ length: options.clients }, async () => {
    while (running) outcomes.push(await ask(base, { path: requestPath(n++) }, options.mark));
  });
  return {
    async stop(): Promise<LoadRun> {
      running = false;
      await Promise.all(clients);
      return { outcomes };
    },
  };
}
