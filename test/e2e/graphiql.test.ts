// GraphiQL as a user behind a firewall meets it: the real server, Debian's Chromium, and no host but the server.
// Opens /graphql as a browser does, runs the default query and reads the result pane. Fails if any part of the
// page (script, styles, workers, fonts) comes from anywhere else, e.g. yoga's default CDN page.
//
// It needs a Chromium (Debian's: `apt-get install chromium`, or CHROMIUM_PATH): test/helpers/chromium.ts.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphiql } from '../../src/graphql/graphiql.js';
import { browserTestsRun, launchChromium } from '../helpers/chromium.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { copyOfTemplate } from '../helpers/templates.js';

const runs = browserTestsRun('GraphiQL browser test');

let server: ServerProcess | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;

beforeAll(async () => {
  if (!runs) return;
  server = await startServer({ DATA_DIR: copyOfTemplate(), SEED_PACKAGES: '30' });
  browser = await launchChromium();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop('SIGTERM');
});

/** True for the server's own URLs, and for data: and blob: URLs the page made itself from them. */
function isOnServer(url: string, origin: string): boolean {
  const parsed = new URL(url);
  if (parsed.protocol === 'data:') return true;
  return parsed.origin === origin; // a blob: URL's origin is the origin of the page that created it
}

/** The text of a Monaco editor's rendered lines: one element per line, spaces as non-breaking ones. */
function editorText(text: string | null): string {
  return (text ?? '').replace(/\u00a0/g, ' ');
}

describe.runIf(runs)('GraphiQL', () => {
  it('is served from the server alone and runs the default query', { timeout: 120_000 }, async () => {
    if (!server || !browser) throw new Error('setup failed');
    const { url } = server;
    const origin = new URL(url).origin;

    // What the result pane should show, read first over plain HTTP.
    const direct = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: graphiql.defaultQuery }),
    });
    const body = (await direct.json()) as {
      data: { packages: { count: number; seed: number; results: { title: string }[] } };
    };
    expect(body.data.packages.count).toBe(30);
    expect(body.data.packages.seed).toBe(42);
    const firstTitle = body.data.packages.results[0]?.title;
    expect(firstTitle).toBeTruthy();

    // Every request of the page and its workers is recorded; anything off the server is refused as well, so the
    // page can only work if it is self-contained.
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const requested: string[] = [];
    context.on('request', (request) => void requested.push(request.url()));
    await context.route('**/*', (route) =>
      isOnServer(route.request().url(), origin) ? route.continue() : route.abort('blockedbyclient'),
    );
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => void pageErrors.push(error.message));

    const response = await page.goto(`${url}/graphql`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    expect(await response?.request().headerValue('accept')).toMatch(/text\/html/);
    expect(await page.title()).toBe('Package listing GraphQL');
    // The page's scripts and styles have loaded by now: fail here, not on a timeout, when they are not ours.
    expect(requested.filter((request) => !isOnServer(request, origin))).toEqual([]);

    // The editor is up with the default query in it.
    const queryEditor = page.locator('.graphiql-query-editor .monaco-editor .view-lines');
    await queryEditor.waitFor({ timeout: 60_000 });
    await expect.poll(async () => editorText(await queryEditor.textContent())).toContain('query FirstPage');

    await page.locator('.graphiql-execute-button').click();

    const result = page.locator('.graphiql-response .monaco-editor .view-lines');
    await result.waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => editorText(await result.textContent()), { timeout: 60_000 })
      .toContain('"count": 30,');
    const shown = editorText(await result.textContent());
    expect(shown).toContain('"seed": 42');
    // Long lines wrap in the pane, so compare without whitespace.
    expect(shown.replace(/\s+/g, '')).toContain(`"title":${JSON.stringify(firstTitle).replace(/\s+/g, '')}`);
    expect(shown).not.toContain('"errors"');

    expect(pageErrors).toEqual([]);
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((request) => !isOnServer(request, origin))).toEqual([]);
    // The page and its schema introspection and query: all on /graphql.
    expect(requested.some((request) => request.startsWith(`${url}/graphql`))).toBe(true);
  });
});
