// The web storefront (examples/storefront/web) as a shopper reads it, in Debian's Chromium, against a fresh gateway
// process on the demo listing (the suite's engine). On a phone (390 x 844): the search across the top, the cards
// on the first screen, the filters in a panel the "Filters" button opens (the page behind it inert, Escape closing
// it), the values chosen shown as chips that remove them; on a desktop (1280 x 900) the filters a sidebar beside
// the cards. A package page in words ("50% deposit", "8¼ hours", no raw decimal), money in the package's own
// currency (a photographer's override included) as Intl writes it, the currency chooser with prices in it, one
// placeholder for every package without an image, and every card image's box sized before it loads.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserTestsRun } from '../helpers/chromium.js';
import { engineName } from '../helpers/database.js';
import { cardIds, cards, expectClean, useStorefront, waitForCards } from '../helpers/storefront.js';
import { freshDemoGateway } from './storefront-checks.js';

const runs = browserTestsRun('Storefront reading test');
const env = freshDemoGateway('storefront-reading-');
// Documents known from the start (the manifest): this file is about what the pages show, not registration.
const rig = runs
  ? useStorefront(env, { PERSISTED_OPERATIONS: 'examples/storefront/web/generated/persisted-documents.json' })
  : undefined;
const { shopper, ask } = rig ?? ({} as NonNullable<typeof rig>);

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

interface Listed {
  id: string;
  urlSlug: string;
  title: string;
  paymentSchedule: string | null;
  hoursOfCoverage: string | null;
  priceMoney: { amount: string; currencyCode: string };
  startingAt: boolean;
  cardImage: { url: string } | null;
  photographer: { id: string; currencyCode: string; overrideCurrencyCode: string | null };
}

/** Packages of the demo listing (500, in a seed's order), to find ones with what a test needs. */
async function listed(): Promise<Listed[]> {
  const pages = await Promise.all(
    [0, 100, 200, 300, 400].map((offset) =>
      ask<{ packages: { results: Listed[] } }>(
        `{ packages(limit: 100, offset: ${offset}, seed: 1) { results { id urlSlug title paymentSchedule hoursOfCoverage
            priceMoney { amount currencyCode } startingAt cardImage { url }
            photographer { id currencyCode overrideCurrencyCode } } } }`,
      ),
    ),
  );
  return pages.flatMap((page) => page.packages.results);
}

function find(packages: Listed[], what: string, test: (item: Listed) => boolean): Listed {
  const found = packages.find(test);
  if (!found) throw new Error(`the demo listing has no package with ${what}`);
  return found;
}

/** Money as a shopper reads it in English: the currency's symbol, its decimals, no ".00" on a whole amount. */
const moneyText = ({ amount, currencyCode }: Listed['priceMoney']) =>
  new Intl.NumberFormat('en', {
    style: 'currency',
    currency: currencyCode,
    trailingZeroDisplay: 'stripIfInteger',
  }).format(amount as `${number}`);

/**
 * Moves the page to `path` as its own links do (history and the page's router, no new document): nothing the page
 * was loading is cut off, so no request fails on the way.
 */
const visit = (page: Page, path: string) =>
  page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`);

const box = async (page: Page, selector: string) => {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not on the page`);
  return found;
};

describe.runIf(runs)(`the storefront on a phone and a desktop, on ${engineName}`, () => {
  it('on a phone: the search across the top, cards on the first screen, the filters in a panel, chips', async () => {
    const { page, record } = await shopper('/?seed=4', PHONE);
    await waitForCards(page, 24);
    const search = await box(page, '#q');
    expect(search.width).toBeGreaterThan(390 * 0.85);
    const first = await box(page, '#cards .card img');
    expect(first.y).toBeGreaterThan(search.y);
    expect(first.y + first.height / 2).toBeLessThan(844); // the first card's picture, half of it at least
    expect(await page.locator('#facets').isVisible()).toBe(false);

    const open = page.getByRole('button', { name: 'Filters' });
    await open.click();
    const panel = page.locator('#facets');
    await expect.poll(() => panel.isVisible()).toBe(true);
    const covering = await box(page, '#facets');
    expect([covering.x, covering.y, covering.width, covering.height]).toEqual([0, 0, 390, 844]);
    expect(await open.getAttribute('aria-expanded')).toBe('true');
    // The page behind is inert: the search box can no longer take the focus.
    expect(await page.evaluate(`document.querySelector('#q').closest('[inert]') !== null`)).toBe(true);
    await panel.getByLabel(/^Weddings \(/).check();
    await expect.poll(() => page.url()).toContain('categories=');
    await panel
      .locator('fieldset', { hasText: 'Instant booking' })
      .getByLabel(/^Yes \(/)
      .check();
    await expect.poll(() => page.url()).toContain('instantBooking=true');
    // The panel's button says how many packages the two filters give, once their answer is in.
    const { packages: chosen } = await ask<{ packages: { count: number } }>(
      '{ packages(limit: 1, filter: { categories: [1], instantBooking: true }) { count } }',
    );
    await expect
      .poll(() => page.locator('#count').textContent())
      .toContain(`of ${chosen.count.toLocaleString('en')} packages`);
    expect(await page.locator('#filters-done').textContent()).toBe(
      `Show ${chosen.count.toLocaleString('en')} packages`,
    );
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await page.evaluate('document.activeElement.id')).toBe('filters-open');
    expect(await open.textContent()).toBe('Filters (2)');

    const chips = page.locator('#chips button');
    expect(await chips.allTextContents()).toEqual(['Weddings ×', 'Instant booking: Yes ×', 'Clear all']);
    const before = await cardIds(page);
    await page.getByRole('button', { name: 'Remove filter: Weddings' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('categories')).toBeNull();
    await expect.poll(() => chips.allTextContents()).toEqual(['Instant booking: Yes ×']);
    expect(await cardIds(page)).not.toEqual(before);
    // The focus is not lost with the chip: it is on the chip left.
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Instant booking: Yes ×');
    expectClean(record);
  }, 45_000);

  it('on a desktop: the filters a sidebar beside the cards, no panel button', async () => {
    const { page, record } = await shopper('/?seed=4');
    await waitForCards(page, 24);
    const sidebar = await box(page, '#facets');
    const first = await box(page, '#cards .card');
    expect(sidebar.x + sidebar.width).toBeLessThan(first.x);
    expect(first.y).toBeLessThan(900 / 2);
    expect(await page.locator('#filters-open').isVisible()).toBe(false);
    expect(await page.locator('#filters-done').isVisible()).toBe(false);
    // A link from before currencies (bounds alone), or an edited one, shows the listing without the parts the
    // gateway would refuse, rather than nothing and an error.
    await page.goto(`${rig?.storefrontUrl()}/?seed=4&priceMin=100.00&priceMax=x&currency=dollars&photographerId=7`);
    await waitForCards(page, 24);
    expect(await page.locator('#chips').textContent()).toBe('');
    expectClean(record);
  });

  it('shows a package in words: "50% deposit", quarter hours as fractions, no raw decimal', async () => {
    const packages = await listed();
    const scheduled = find(packages, 'a payment schedule of 0.5', (item) => item.paymentSchedule === '0.500000000');
    const quarter = find(packages, 'hours ending in a quarter', (item) =>
      /^[1-9]\d*\.250$/.test(item.hoursOfCoverage ?? ''),
    );
    const half = find(packages, 'hours ending in a half', (item) => /^[1-9]\d*\.500$/.test(item.hoursOfCoverage ?? ''));
    const titles = new Map(packages.map((item) => [item.urlSlug, item.title]));
    const { page, record } = await shopper('/?seed=1', PHONE);
    await waitForCards(page, 24);
    const view = page.locator('#package');
    const facts = async (slug: string) => {
      await visit(page, `/packages/${slug}`);
      await expect.poll(() => page.title()).toBe(`${titles.get(slug)}: Photography packages`);
      await view.locator('.pricing dl').waitFor();
      const photographer = view
        .locator('.part')
        .filter({ has: page.getByRole('heading', { name: 'The photographer' }) });
      const text = `${await view.locator('.pricing').textContent()} ${await photographer.textContent()}`;
      // No value the listing stores with three or more decimals is shown as it is stored.
      expect(text, slug).not.toMatch(/\d\.\d{3}/);
      return view
        .locator('.pricing dl')
        .evaluate((list) =>
          Object.fromEntries(
            [...list.querySelectorAll('dt')].map((term) => [term.textContent, term.nextElementSibling?.textContent]),
          ),
        );
    };
    expect((await facts(scheduled.urlSlug))['Payment schedule']).toBe('50% deposit');
    const whole = (hours: string | null) => Number.parseInt(hours ?? '', 10);
    expect((await facts(quarter.urlSlug)).Coverage).toBe(`${whole(quarter.hoursOfCoverage)}¼ hours`);
    expect((await facts(half.urlSlug)).Coverage).toBe(`${whole(half.hoursOfCoverage)}½ hours`);
    expectClean(record);
  }, 45_000);

  it("shows money in the package's currency, a photographer's override included, and chooses a currency", async () => {
    const packages = await listed();
    const overridden = find(
      packages,
      "a photographer's currency override",
      (item) =>
        item.photographer.overrideCurrencyCode !== null &&
        item.photographer.overrideCurrencyCode !== item.photographer.currencyCode,
    );
    expect(overridden.priceMoney.currencyCode).toBe(overridden.photographer.overrideCurrencyCode?.toUpperCase());
    const price = `${overridden.startingAt ? 'From ' : ''}${moneyText(overridden.priceMoney)}`;
    const { page, record } = await shopper(`/?seed=1&photographerId=${overridden.photographer.id}`);
    await expect.poll(() => cards(page).count()).toBeGreaterThan(0);
    expect(
      await cards(page)
        .filter({ has: page.locator(`a[href="/packages/${overridden.urlSlug}"]`) })
        .locator('.price')
        .textContent(),
    ).toBe(price);
    await visit(page, `/packages/${overridden.urlSlug}`);
    await expect.poll(() => page.locator('#package .price.big').textContent()).toBe(price);

    // The chooser: euros only, the price ranges in euros, one chosen as a chip; the counts the gateway's.
    await visit(page, '/?seed=1');
    await waitForCards(page, 24);
    await page.getByLabel('Currency').selectOption('EUR');
    await expect.poll(() => new URL(page.url()).searchParams.get('currency')).toBe('EUR');
    await expect
      .poll(async () =>
        (await cards(page).locator('.price').allTextContents()).every((text) => /^(From )?€/.test(text)),
      )
      .toBe(true);
    const range = page.locator('fieldset', { hasText: 'Price' }).getByLabel(/^€250 to €499\.99 \(/);
    await range.check();
    await expect.poll(() => page.locator('#chips').textContent()).toContain('€250 to €499.99');
    const { packages: euros } = await ask<{ packages: { count: number } }>(
      '{ packages(limit: 1, filter: { currency: "EUR", priceMin: "250.00", priceMax: "499.99" }) { count } }',
    );
    await expect
      .poll(() => page.locator('#count').textContent())
      .toContain(`of ${euros.count.toLocaleString('en')} packages`);
    expectClean(record);
  }, 45_000);

  it('draws one placeholder for every package without an image, and sizes every card image before it loads', async () => {
    // A seed whose first page has two packages without an image at least.
    let seed = 0;
    let missing: string[] = [];
    while (missing.length < 2 && seed < 50) {
      seed++;
      const { packages } = await ask<{ packages: { results: { id: string; cardImage: unknown }[] } }>(
        `{ packages(limit: 24, seed: ${seed}) { results { id cardImage(maxWidth: 640) { url } } } }`,
      );
      missing = packages.results.filter((item) => item.cardImage === null).map((item) => item.id);
    }
    expect(missing.length, 'a first page with two packages without an image').toBeGreaterThanOrEqual(2);
    const { page, record } = await shopper(`/?seed=${seed}`);
    await waitForCards(page, 24);
    const pictures = await cards(page).evaluateAll((items) =>
      items.map((item) => {
        const image = item.querySelector('img') as HTMLImageElement;
        return {
          id: item.getAttribute('data-id'),
          src: image.getAttribute('src'),
          width: image.getAttribute('width'),
          height: image.getAttribute('height'),
          ratio: image.clientWidth / image.clientHeight,
        };
      }),
    );
    const placeholders = new Set(
      pictures.filter((picture) => missing.includes(picture.id ?? '')).map((picture) => picture.src),
    );
    expect(placeholders.size).toBe(1);
    expect([...placeholders][0]).toMatch(/^\/assets\/no-image\.[\w-]+\.svg$/);
    for (const picture of pictures) {
      expect(Number(picture.width), picture.id ?? '').toBeGreaterThan(0);
      expect(Number(picture.height), picture.id ?? '').toBeGreaterThan(0);
      expect(picture.ratio).toBeCloseTo(4 / 3, 1);
    }
    expectClean(record);
  });
});
