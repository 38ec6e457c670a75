// The web storefront (examples/storefront/web) in Debian's Chromium beyond its listing, against a real gateway process
// on the suite's engine (PGlite, or PostgreSQL with TEST_DATABASE_URL), 60 demo packages: a package page by its slug
// with every part the gateway has for it, the way back to the listing as it was left, a 404 page for an unknown slug
// (one that is no valid escape too); the browser keeping the gateway's answers and revalidating them (ETag, 304);
// axe-core finding no serious violation and the keyboard reaching every control; and an import (the project's import
// tool, through the running server on PGlite) shown live: the page says the listing changed and shows the new cards in
// place, its scroll, seed and filter untouched. No page logs a console error or has a request fail.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { browserTestsRun } from '../helpers/chromium.js';
import { engineName, scratchForProcesses } from '../helpers/database.js';
import { runScript } from '../helpers/server-process.js';
import { cardIds, cards, expectClean, queriesOf, useStorefront, waitForCards } from '../helpers/storefront.js';
import { seriousViolations } from './storefront-checks.js';

const runs = browserTestsRun('Storefront browser test');
const COUNT = 60;
const MARK = 'Imported ';
const { dir, env } = scratchForProcesses('storefront-pages-');
// The storefront's documents are known to this gateway from the start (its manifest, as PERSISTED_OPERATIONS), so
// no shopper here meets a registration (storefront.test.ts has those). A short browser lifetime (CACHE_CONTROL),
// so that the browser revalidates its copies within the test.
const rig = runs
  ? useStorefront(env, {
      SEED_PACKAGES: String(COUNT),
      PERSISTED_OPERATIONS: 'examples/storefront/web/generated/persisted-documents.json',
      CACHE_CONTROL: 'public, max-age=2',
    })
  : undefined;
// Without a browser (skipped) there is no rig: the file must still load, so the names stand for nothing then.
const { shopper, ask, order, answered } = rig ?? ({} as NonNullable<typeof rig>);

interface Listed {
  urlSlug: string;
  title: string;
  images: { id: string }[];
  priorityTags: { tag: string }[];
  linkedAddOns: { packageAddOnTemplate: { name: string } }[];
  cancellationPolicy: string | null;
  photographer: { name: string; packages: { totalCount: number } };
}

const scrollOf = (page: Page) => page.evaluate('window.scrollY') as Promise<number>;

describe.runIf(runs)(`the storefront's pages in Chromium, on ${engineName}`, () => {
  it('opens a package page with every part, comes back to the listing as it was, and has a 404', async () => {
    const { packages } = await ask<{ packages: { results: Listed[] } }>(
      '{ packages(limit: 60, seed: 1) { results { urlSlug title images { id } priorityTags { tag } linkedAddOns { packageAddOnTemplate { name } } cancellationPolicy photographer { name packages(first: 7) { totalCount } } } } }',
    );
    const rich = packages.results.find(
      (item) =>
        item.images.length > 1 &&
        item.priorityTags.length > 0 &&
        item.linkedAddOns.length > 0 &&
        item.cancellationPolicy &&
        item.photographer.packages.totalCount > 1,
    );
    if (!rich) throw new Error('no demo package has images, tags, add-ons, a policy and a photographer with others');

    const { page, record } = await shopper('/?seed=1');
    await waitForCards(page, 24);
    const listed = await cardIds(page);
    // A card further down: the page scrolls to it, and that place is kept for the way back.
    const chosen = cards(page).nth(13);
    await chosen.scrollIntoViewIfNeeded();
    const scroll = await scrollOf(page);
    expect(scroll).toBeGreaterThan(0);
    const title = await chosen.locator('h3').textContent();
    await chosen.locator('a').click();
    await expect.poll(() => page.locator('#package h1').textContent()).toBe(title);
    expect(new URL(page.url()).pathname).toMatch(/^\/packages\/[^/]+$/);
    await page.goBack();
    await expect.poll(() => page.locator('#listing').isVisible()).toBe(true);
    // The same cards (and more, if the place it came back to is near their end: the listing scrolls on).
    expect((await cardIds(page)).slice(0, listed.length)).toEqual(listed);
    expect(await scrollOf(page)).toBe(scroll);

    await page.goto(`${rig?.storefrontUrl()}/packages/${rich.urlSlug}`);
    const view = page.locator('#package');
    await expect.poll(() => view.locator('h1').textContent()).toBe(rich.title);
    expect(await view.locator('.gallery img').count()).toBe(rich.images.length);
    const text = (await view.textContent()) ?? '';
    for (const heading of ['Deposit', 'Policies', 'Cancellation', 'Tags', 'Add-ons', 'The photographer']) {
      expect(text).toContain(heading);
    }
    for (const { tag } of rich.priorityTags) expect(text).toContain(tag);
    for (const { packageAddOnTemplate } of rich.linkedAddOns) expect(text).toContain(packageAddOnTemplate.name);
    expect(text).toContain(rich.photographer.name);
    const others = Math.min(6, rich.photographer.packages.totalCount - 1);
    expect(await view.locator('.card').count()).toBe(others);

    await page.goto(`${rig?.storefrontUrl()}/packages/no-such-package-anywhere`);
    await expect.poll(() => view.locator('h1').textContent()).toBe('Package not found');
    expect(await page.title()).toBe('Package not found: Photography packages');
    expectClean(record);
  }, 90_000);

  it('shows an address that is no valid escape as an unknown package, not an empty page', async () => {
    const { page, record } = await shopper('/packages/%E0%A4%A');
    const view = page.locator('#package');
    await expect.poll(() => view.textContent(), { timeout: 15_000 }).toContain('%E0%A4%A');
    expect(await view.locator('h1').textContent()).toBe('Package not found');
    expect(await page.title()).toBe('Package not found: Photography packages');
    expectClean(record);
  });

  it("keeps the gateway's answers in the browser and revalidates them: 304 for an unchanged one", async () => {
    const { page, record } = await shopper('/?seed=11');
    await waitForCards(page, 24);
    const revalidated = await answered('GET', '304');
    await page.waitForTimeout(2500); // past the answer's max-age
    await page.reload();
    await waitForCards(page, 24);
    // The browser asked again with the ETag it kept (If-None-Match), and the gateway said it had not changed.
    await expect.poll(() => answered('GET', '304')).toBeGreaterThan(revalidated);
    expect(queriesOf(record).every((request) => request.method() === 'GET')).toBe(true);
    expectClean(record);
  }, 60_000);

  it('has no serious accessibility violation, and the keyboard reaches and works every control', async () => {
    const { page, record } = await shopper('/?seed=2');
    await waitForCards(page, 24);
    expect(await seriousViolations(page)).toEqual([]);
    // Tab from the top through the whole page, until the focus leaves it or comes round again: every visible link,
    // button and field is reached (cards the listing loads on as the focus scrolls it included).
    for (let press = 0; press < 400; press++) {
      await page.keyboard.press('Tab');
      // Cards the focus asked for by scrolling arrive before it moves on, as a shopper would wait for them; on a
      // loaded machine they could otherwise land behind the focus, never tabbed to.
      await page.locator('#cards[aria-busy]').waitFor({ state: 'detached' });
      const done = await page.evaluate(`(() => {
        const element = document.activeElement;
        if (element === document.body || element.hasAttribute('data-reached')) return true;
        element.setAttribute('data-reached', '');
        return false;
      })()`);
      if (done) break;
    }
    const controls = page.locator('a[href], button, input').filter({ visible: true });
    const reached = page.locator('[data-reached]:is(a[href], button, input)');
    expect(await reached.count()).toBeGreaterThan(24);
    expect(await reached.count()).toBe(await controls.count());
    // And works them: a facet with Space, a card with Enter.
    const box = page.locator('#facets .facet-value input').first();
    const matching = Number(
      /\((\d+)\)/.exec((await page.locator('#facets .facet-value label').first().textContent()) ?? '')?.[1],
    );
    await box.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => page.url()).toContain('categories=');
    await waitForCards(page, Math.min(24, matching));
    await cards(page).first().locator('a').focus();
    await page.keyboard.press('Enter');
    await page.locator('#package h1').waitFor();
    await page.locator('#package .part').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expectClean(record);
  }, 90_000);

  it('shows an import live: says the listing changed and refreshes the cards in place', async () => {
    const { page, record } = await shopper('/?seed=3');
    await waitForCards(page, 24);
    await page.locator('#more').dispatchEvent('click'); // where it is: scrolled to, it loads more by itself
    await waitForCards(page, 48);
    await page.mouse.wheel(0, 1200);
    await expect.poll(() => scrollOf(page)).toBeGreaterThan(0);
    const scroll = await scrollOf(page);
    const url = page.url();
    await page.waitForTimeout(1500); // the stream is open and the gateway's watch has read the version
    const file = join(dir.path, 'import.json');
    const records = [...generatePackages({ count: COUNT })].map((r) => ({ ...r, title: `${MARK}${r.title}` }));
    writeFileSync(file, JSON.stringify(records));
    const result = await runScript('src/cli/import.ts', env, [file]);
    expect(result.code, result.stderr).toBe(0);

    await expect.poll(() => page.locator('#live').textContent(), { timeout: 15_000 }).toContain('The listing changed');
    const titles = await cards(page).locator('h3').allTextContents();
    expect(titles).toHaveLength(48);
    expect(titles.every((shown) => shown.startsWith(MARK))).toBe(true);
    expect(await cardIds(page)).toEqual(await order({ seed: 3, limit: 48 }));
    expect(page.url()).toBe(url);
    expect(await scrollOf(page)).toBe(scroll);
    // What it asked after the change named the new listing, so that no cache could answer with the old one.
    const after = queriesOf(record).filter((request) => new URL(request.url()).searchParams.has('listing'));
    expect(after.length).toBeGreaterThanOrEqual(2);
    expectClean(record);
  }, 90_000);
});
