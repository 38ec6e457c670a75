// Browser tests of the web storefront (examples/storefront/web): what a page did (its console errors, uncaught
// errors, failed requests, answers with an error status, and its requests to the gateway), and the rig a test
// starts: Chromium, a gateway, the storefront in front of it.
import type { Browser, BrowserContext, BrowserContextOptions, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchChromium } from './chromium.js';
import { type ServerProcess, startServer } from './server-process.js';
import { type StorefrontProcess, startStorefrontProcess } from './storefront-process.js';

export interface PageRecord {
  /** Console errors and uncaught exceptions, as the page said them. */
  errors: string[];
  /** Requests that got no answer (refused, reset, blocked), with why. */
  failed: string[];
  /** Requests answered with an error status (4xx, 5xx), with it. */
  rejected: string[];
  /** Every request the page made to the gateway (the event stream included), in order. */
  gateway: Request[];
}

/** The subscription's stream (one per page, open while the page is). */
const isEventStream = (request: Request) => request.url().includes('query=subscription');

/**
 * Records what `page` does from now on; requests to `gatewayUrl` are kept for the test to inspect. A request the
 * browser cancels because its page is being left (net::ERR_ABORTED: the event stream, an image still loading) is
 * no failure; any other is one.
 */
export function recordPage(page: Page, gatewayUrl: string): PageRecord {
  const record: PageRecord = { errors: [], failed: [], rejected: [], gateway: [] };
  const inFlight = new Set<Request>();
  const left = new WeakSet<Request>();
  page.on('console', (message) => {
    if (message.type() === 'error') record.errors.push(message.text());
  });
  page.on('pageerror', (error) => void record.errors.push(`uncaught: ${error.message}`));
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      for (const pending of inFlight) left.add(pending);
    }
    inFlight.add(request);
    if (request.url().startsWith(gatewayUrl)) record.gateway.push(request);
  });
  page.on('requestfinished', (request) => void inFlight.delete(request));
  page.on('response', (response) => {
    const request = response.request();
    if (response.status() >= 400) record.rejected.push(`${request.method()} ${request.url()}: ${response.status()}`);
  });
  page.on('requestfailed', (request) => {
    inFlight.delete(request);
    const reason = request.failure()?.errorText ?? 'unknown';
    if (reason === 'net::ERR_ABORTED' && left.has(request)) return;
    record.failed.push(`${request.method()} ${request.url()}: ${reason}`);
  });
  return record;
}

/** The GraphQL requests among the gateway's, without the event stream. */
export const queriesOf = (record: PageRecord) => record.gateway.filter((request) => !isEventStream(request));

/** What a browser test of the storefront works with: its processes, new shoppers, and the gateway's own answers. */
export interface StorefrontRig {
  gatewayUrl(): string;
  storefrontUrl(): string;
  /** The gateway itself (to read its output), when there is one of the rig's own. */
  gateway(): ServerProcess;
  /** A new shopper: a browser context of its own (an empty cache) at `path`, and what its page does. */
  shopper(path: string, options?: BrowserContextOptions): Promise<{ page: Page; record: PageRecord }>;
  /** A GraphQL answer straight from the gateway, to hold the page to. */
  ask<T>(text: string, variables?: Record<string, unknown>): Promise<T>;
  /** The ids of a page of packages in an order, as the gateway gives them (24 unless `limit` says). */
  order(variables: { seed?: number; filter?: object; sort?: string; limit?: number }): Promise<string[]>;
  /** Requests the gateway answered on /graphql with this method (and status), from its /metrics. */
  answered(method: string, status?: string): Promise<number>;
}

/**
 * Starts, for the test file, Chromium, a gateway on the suite's engine (`env` names its database; `gatewayEnv`
 * adds to its settings), optionally something in front of it (`front`: Varnish, whose URL the storefront is
 * pointed at), and the storefront; stops them all after.
 */
export function useStorefront(
  env: Record<string, string>,
  gatewayEnv: Record<string, string>,
  front?: (gateway: ServerProcess) => Promise<{ url: string; stop(): Promise<void> }>,
): StorefrontRig {
  let browser: Browser | undefined;
  let gateway: ServerProcess | undefined;
  let edge: { url: string; stop(): Promise<void> } | undefined;
  let storefront: StorefrontProcess | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchChromium();
    gateway = await startServer({ ...env, RATE_LIMIT: '0', ...gatewayEnv });
    edge = front ? await front(gateway) : undefined;
    storefront = await startStorefrontProcess(edge?.url ?? gateway.url);
  }, 180_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await storefront?.stop();
    await edge?.stop();
    await gateway?.stop();
  });
  const gatewayUrl = () => edge?.url ?? (gateway as ServerProcess).url;
  const ask = async <T>(text: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const response = await fetch(`${(gateway as ServerProcess).url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: text, variables }),
    });
    const body = (await response.json()) as { data: T; errors?: unknown };
    if (body.errors) throw new Error(`the gateway refused ${text}: ${JSON.stringify(body.errors)}`);
    return body.data;
  };
  return {
    gatewayUrl,
    storefrontUrl: () => (storefront as StorefrontProcess).url,
    gateway: () => gateway as ServerProcess,
    async shopper(path, options = {}) {
      const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 }, ...options });
      contexts.push(context);
      const page = await context.newPage();
      const record = recordPage(page, gatewayUrl());
      await page.goto(`${storefront?.url}${path}`);
      return { page, record };
    },
    ask,
    async order(variables) {
      const { packages } = await ask<{ packages: { results: { id: string }[] } }>(
        'query ($seed: Int, $filter: PackageFilter, $sort: PackageSort, $limit: Int) { packages(limit: $limit, seed: $seed, filter: $filter, sort: $sort) { results { id } } }',
        { limit: 24, ...variables },
      );
      return packages.results.map((result) => result.id);
    },
    async answered(method, status = '\\d+') {
      const text = await (await fetch(`${(gateway as ServerProcess).url}/metrics`)).text();
      const line = new RegExp(
        `^http_request_duration_seconds_count\\{(?=[^}]*method="${method}")(?=[^}]*route="/graphql")(?=[^}]*status="${status}")[^}]*\\} (\\d+)`,
        'gm',
      );
      return [...text.matchAll(line)].reduce((sum, match) => sum + Number(match[1]), 0);
    },
  };
}

export const cards = (page: Page) => page.locator('#cards .card');
export const cardIds = (page: Page) =>
  cards(page).evaluateAll((items) => items.map((item) => item.getAttribute('data-id')));
export const seedOf = (page: Page) => Number(new URL(page.url()).searchParams.get('seed'));

/** Waits for `n` cards and for the listing to be idle. */
export async function waitForCards(page: Page, n: number): Promise<void> {
  await expect.poll(() => cards(page).count(), { timeout: 20_000 }).toBe(n);
  await page.locator('#cards:not([aria-busy])').waitFor();
}

/** A page's console and requests were clean: no error said, no request failed or answered with an error status. */
export function expectClean(record: PageRecord): void {
  expect(record.errors, 'console errors').toEqual([]);
  expect(record.failed, 'failed requests').toEqual([]);
  expect(record.rejected, 'requests answered 4xx or 5xx').toEqual([]);
}
