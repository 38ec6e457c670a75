// The paths whose cost must not grow with the listing, as `npm run bench:scale` and `npm run bench:first-requests`
// ask them, and the small import that gives the listing a new version between their two rounds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePackages } from '../../src/demo/generate.js';
import { renderJson } from '../../src/rest/render.js';
import { type Request, runCommand } from '../harness.js';
import { cardsRequest, FILTER_90, fullPageRequest, graphqlRequest, restPage, SLIM_PAGE_QUERY } from '../scenarios.js';

const FACETS = `query Facets($filter: PackageFilter) { packages(limit: 24, seed: 7, filter: $filter) {
  count facets { category { values { id count } } price { values { count } } instantBooking { values { count } }
  featured { values { count } } photographer { values { id count } } } } }`;

export interface Path {
  id: string;
  label: string;
  request: Request;
}

/** Each path's request; the deep v2 page is at 90% of the listing. */
export function scalePaths(packages: number): Path[] {
  const deep = Math.floor((packages * 0.9) / 50) * 50;
  return [
    { id: 'v2-first', label: 'v2 page, offset 0', request: restPage(0) },
    { id: 'v2-deep', label: 'v2 page at 90% of the listing', request: restPage(deep) },
    { id: 'graphql-full', label: 'GraphQL full page of 50', request: fullPageRequest() },
    { id: 'graphql-slim', label: 'GraphQL slim page of 50', request: graphqlRequest(SLIM_PAGE_QUERY, {}) },
    { id: 'cards-90', label: 'GraphQL cards, filter ~90%', request: cardsRequest(FILTER_90) },
    {
      id: 'facets-90',
      label: 'GraphQL facets, filter ~90%',
      request: graphqlRequest(FACETS, { filter: FILTER_90 }, 'Facets'),
    },
    {
      id: 'categories',
      label: 'GraphQL categories',
      request: graphqlRequest('{ categories { code name packageCount } }', {}),
    },
    { id: 'search', label: 'GraphQL search "golden hour"', request: cardsRequest({ search: 'golden hour' }) },
    { id: 'search-typo', label: 'GraphQL search with a typo "weding"', request: cardsRequest({ search: 'weding' }) },
  ];
}

/** One request's time in ms and its status; an answer that is not the expected one is a failure. */
export interface Timed {
  ms: number;
  status: number;
}

/** Times one request; a 2xx answer must be the expected one, any other status is returned as it is. */
export async function timedRequest(url: string, request: Request): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.ok && !request.verify(body)) throw new Error(`${request.path}: unexpected answer ${body.slice(0, 200)}`);
  return { ms, status: response.status };
}

/** One request's time in ms; anything but the expected answer throws. */
export async function timed(url: string, request: Request): Promise<number> {
  const { ms, status } = await timedRequest(url, request);
  if (status < 200 || status > 299) throw new Error(`${request.path}: ${status}`);
  return ms;
}

/**
 * A new listing version: five packages imported again with new titles (new on every run, so the import always
 * writes), through the product's own command (on the embedded database it hands them to the running server).
 */
export async function importFiveRetitled(env: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'retitled-'));
  try {
    const stamp = new Date().toISOString();
    const records = [...generatePackages({ count: 5 })].map((record) => ({
      ...record,
      title: `${record.title} ${stamp}`,
    }));
    writeFileSync(join(dir, 'page.json'), renderJson({ count: 5, next: null, previous: null, results: records }));
    await runCommand('node', ['dist/cli/import.js', join(dir, 'page.json')], env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
