// The web storefront's listing (examples/storefront/web) in Debian's Chromium, as shoppers use it: the storefront's
// own server process on one origin, a real gateway process on another (the suite's engine: PGlite, or PostgreSQL
// with TEST_DATABASE_URL), 60 demo packages. Each flow is held to what the gateway answers directly: queries go as
// hashed GETs (APQ), the first shopper registering each document once behind one CORS preflight the browser keeps,
// later shoppers sending hashes alone with no preflight; 24 cards in the order of the seed in the URL, the same
// after a reload; every package once across scrolling and "More packages"; facets with disjunctive counts and the
// filter in the URL; search as the shopper types (a typo, a prefix), debounced, the last search's answer shown even
// when an earlier one comes back after it. No page logs a console error, has a request fail or gets a 4xx, not even
// for a hash the gateway does not know yet (200, as Apollo Server answers it). The package page, live changes,
// caching and accessibility: storefront-pages.test.ts.
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserTestsRun } from '../helpers/chromium.js';
import { engineName, scratchForProcesses } from '../helpers/database.js';
import { cardIds, cards, expectClean, queriesOf, seedOf, useStorefront, waitForCards } from '../helpers/storefront.js';

const runs = browserTestsRun('Storefront browser test');
const COUNT = 60;
const { env } = scratchForProcesses('storefront-');
const rig = runs ? useStorefront(env, { SEED_PACKAGES: String(COUNT) }) : undefined;
// Without a browser (skipped) there is no rig: the file must still load, so the names stand for nothing then.
const { shopper, ask, order, answered } = rig ?? ({} as NonNullable<typeof rig>);

describe.runIf(runs)(`the storefront in Chromium, on ${engineName}`, () => {
  it('registers each document once for the first shopper, behind one preflight; then sends hashes alone over GET', async () => {
    const options = () => answered('OPTIONS');
    const preflightsBefore = await options();
    const { page, record } = await shopper('/');
    await waitForCards(page, 24);
    await page.locator('#more').dispatchEvent('click'); // where it is: scrolled to, it loads more by itself
    await waitForCards(page, 48);
    await page.locator('#cards .card a').first().click();
    await page.locator('#package h1').waitFor();
    // Three documents (the first page, a page by seed, the package page), each met once as an unknown hash: a 200
    // PersistedQueryNotFound (nothing on the console: a 4xx would be), then its text POSTed with the hash.
    const posts = queriesOf(record).filter((request) => request.method() === 'POST');
    expect(posts).toHaveLength(3);
    for (const post of posts) expect(JSON.parse(post.postData() ?? '{}').extensions.persistedQuery.version).toBe(1);
    // Each registration follows its miss: the GET of the same hash just before it.
    const hashOf = (request: Request): unknown =>
      (request.method() === 'GET'
        ? JSON.parse(new URL(request.url()).searchParams.get('extensions') ?? '{}')
        : JSON.parse(request.postData() ?? '{}').extensions
      )?.persistedQuery?.sha256Hash;
    const asked = queriesOf(record);
    const misses = posts.map((post) =>
      asked
        .slice(0, asked.indexOf(post))
        .findLast((request) => request.method() === 'GET' && hashOf(request) === hashOf(post)),
    );
    for (const miss of misses) {
      const response = await miss?.response();
      expect([response?.status(), response?.headers()['cache-control']]).toEqual([
        200,
        'private, no-cache, must-revalidate',
      ]);
    }
    expectClean(record);
    // Three POSTs, one preflight: the browser kept the gateway's answer for its Access-Control-Max-Age.
    expect((await options()) - preflightsBefore).toBe(1);

    const second = await shopper(new URL(page.url()).pathname);
    await second.page.locator('#package h1').waitFor();
    await second.page.goto(`${rig?.storefrontUrl()}/?seed=${seedOf(page)}`);
    await waitForCards(second.page, 24);
    const queries = queriesOf(second.record);
    expect(queries.length).toBeGreaterThanOrEqual(2);
    for (const query of queries) {
      const url = new URL(query.url());
      expect(query.method()).toBe('GET');
      expect(url.searchParams.get('query')).toBeNull();
      expect(JSON.parse(url.searchParams.get('extensions') ?? '{}').persistedQuery.sha256Hash).toMatch(
        /^[0-9a-f]{64}$/,
      );
      // Only CORS-safelisted headers: a GET needs no preflight.
      expect(
        Object.keys(await query.allHeaders()).filter((name) => /^(content-type|authorization|x-)/.test(name)),
      ).toEqual([]);
    }
    expect((await options()) - preflightsBefore).toBe(1);
    expectClean(second.record);
  }, 90_000);

  it('shows 24 cards in the order of the seed in the URL, the same after a reload', async () => {
    const { page, record } = await shopper('/');
    await waitForCards(page, 24);
    const seed = seedOf(page);
    expect(Number.isInteger(seed)).toBe(true);
    const shown = await cardIds(page);
    expect(shown).toEqual(await order({ seed }));
    const first = cards(page).first();
    await expect.poll(() => first.locator('h3').textContent()).toBeTruthy();
    // The price as people write it, in the package's currency: "$680", "From €1,250.50", "PLN 990".
    expect(await first.locator('.price').textContent()).toMatch(/^(From )?\D*\d{1,3}(,\d{3})*(\.\d\d)?( [A-Z]{3})?$/);
    expect(await first.locator('.by').textContent()).toMatch(/^by \S/);
    await page.reload();
    await waitForCards(page, 24);
    expect(await cardIds(page)).toEqual(shown);
    expect(seedOf(page)).toBe(seed);
    expectClean(record);
  }, 60_000);

  it('shows every package once across scrolling and "More packages", in the seed\'s order', async () => {
    const { page, record } = await shopper('/?seed=77');
    await waitForCards(page, 24);
    // Scrolling to the end loads the next 24; the button loads the rest.
    await page.mouse.wheel(0, 10_000);
    await waitForCards(page, 48);
    await page.locator('#more').dispatchEvent('click'); // where it is: scrolled to, it loads more by itself
    await waitForCards(page, COUNT);
    await expect.poll(() => page.locator('#more').isHidden()).toBe(true);
    const shown = await cardIds(page);
    expect(new Set(shown).size).toBe(COUNT);
    expect(shown).toEqual(await order({ seed: 77, limit: COUNT }));
    expect(await page.locator('#count').textContent()).toBe(`${COUNT} of ${COUNT} packages`);
    expectClean(record);
  }, 60_000);

  it('filters by facets with disjunctive counts, the filter kept in the URL', async () => {
    const { page, record } = await shopper('/?seed=5');
    await waitForCards(page, 24);
    const facets = await ask<{
      packages: { facets: { category: { values: { label: string; count: number; input: string }[] } } };
    }>('{ packages(limit: 1) { facets { category { values { label count input } } } } }');
    const [a, b] = facets.packages.facets.category.values.filter((value) => value.count > 0);
    if (!a || !b) throw new Error('the demo listing has fewer than two categories');
    await page.getByLabel(new RegExp(`^${a.label} \\(`)).check();
    await expect.poll(() => page.url()).toContain('categories=');
    const one = JSON.parse(a.input) as { categories: number[] };
    await waitForCards(page, Math.min(24, a.count));
    expect(await cardIds(page)).toEqual(await order({ seed: 5, filter: one }));
    // Disjunctive: the other category still counts as if none were chosen, and choosing it adds to the first.
    expect(await page.getByLabel(new RegExp(`^${b.label} \\(`)).getAttribute('id')).toBeTruthy();
    expect(await page.locator('#facets').textContent()).toContain(`${b.label} (${b.count})`);
    await page.getByLabel(new RegExp(`^${b.label} \\(`)).check();
    const both = { categories: [...one.categories, ...(JSON.parse(b.input) as { categories: number[] }).categories] };
    await expect.poll(() => page.locator('#count').textContent()).toContain(`of ${a.count + b.count} packages`);
    expect(await cardIds(page)).toEqual(await order({ seed: 5, filter: both }));
    // Instant booking on top: counted beside the two categories.
    const instant = await ask<{ packages: { count: number } }>(
      'query ($filter: PackageFilter) { packages(limit: 1, filter: $filter) { count } }',
      { filter: { ...both, instantBooking: true } },
    );
    await page
      .locator('fieldset', { hasText: 'Instant booking' })
      .getByLabel(/^Yes \(/)
      .check();
    await expect.poll(() => page.locator('#count').textContent()).toContain(`of ${instant.packages.count} packages`);
    const url = page.url();
    expect(new URL(url).searchParams.get('instantBooking')).toBe('true');
    // A shared link shows the same.
    const shown = await cardIds(page);
    await page.goto(url);
    await expect.poll(() => cardIds(page)).toEqual(shown);
    expect(
      await page
        .locator('fieldset', { hasText: 'Instant booking' })
        .getByLabel(/^Yes \(/)
        .isChecked(),
    ).toBe(true);
    expectClean(record);
  }, 90_000);

  it('searches as the shopper types: debounced, a typo and a prefix found, the last search winning', async () => {
    const { page, record } = await shopper('/?seed=9');
    await waitForCards(page, 24);
    const box = page.getByRole('searchbox', { name: 'Search packages' });
    const searched = () =>
      queriesOf(record)
        .map((request) => JSON.parse(new URL(request.url()).searchParams.get('variables') ?? '{}').filter?.search)
        .filter((search): search is string => typeof search === 'string');
    const expectResults = async (search: string) => {
      const ids = await order({ filter: { search }, sort: 'RELEVANCE' });
      expect(ids.length, `the demo listing has packages for "${search}"`).toBeGreaterThan(0);
      // The URL names the search once it is asked (a pause in the typing may have asked a prefix of it first, whose
      // cards can be the same), then the cards are its answer's.
      await expect.poll(() => new URL(page.url()).searchParams.get('q'), { timeout: 15_000 }).toBe(search);
      await expect.poll(() => cardIds(page), { timeout: 15_000 }).toEqual(ids);
    };

    // Typed at a steady pace, a search is asked when the typing pauses, not per keystroke; a prefix finds words.
    await box.click();
    await box.pressSequentially('golden hou', { delay: 40 });
    await expectResults('golden hou');
    expect(searched().at(-1)).toBe('golden hou');
    // Fewer searches than keystrokes (one on a quiet machine: a loaded one may pause longer between two keys).
    expect(searched().length).toBeLessThan('golden hou'.length);
    // A typo the listing forgives.
    await box.fill('');
    await box.pressSequentially('weding', { delay: 40 });
    await expectResults('weding');
    expect(await order({ filter: { search: 'weding' }, sort: 'RELEVANCE' })).toEqual(
      await order({ filter: { search: 'wedding' }, sort: 'RELEVANCE' }),
    );

    // An answer that comes back late does not replace the later search's: "port" is held 1.5 s at the network.
    let held = 0;
    await page.route(/\/graphql\?/, async (route) => {
      const variables = new URL(route.request().url()).searchParams.get('variables') ?? '';
      if (variables.includes('"search":"port"')) {
        held++;
        await new Promise((resolve) => setTimeout(resolve, 1500));
      }
      await route.continue();
    });
    await box.fill('port');
    await expect.poll(() => held).toBe(1);
    await box.fill('portrait');
    await expectResults('portrait');
    await page.waitForTimeout(2000); // the held answer is in by now, and dropped
    await expectResults('portrait');
    expect(await cards(page).count()).toBeGreaterThan(0);
    expectClean(record);
  }, 90_000);
});
