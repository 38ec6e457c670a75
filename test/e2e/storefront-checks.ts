// What the storefront's browser tests hold a page to beyond its requests (test/helpers/storefront.ts): axe-core's
// serious and critical violations, and the page's own measures of how it came in (layout shifts, its largest
// contentful paint, when the first cards were on screen), taken in the page by PerformanceObserver. And the gateway
// a shopper meets first: a fresh one on the demo listing, as `npm start` runs it.
import { join } from 'node:path';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { onPostgres, scratchForProcesses } from '../helpers/database.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The demo listing's size (src/config.ts's DEMO_PACKAGES): what a fresh `npm start` serves. */
export const DEMO_PACKAGES = 2000;

/**
 * The settings of a fresh gateway on the demo listing: on PGlite a new data directory (the first start copies the
 * prepared demo database in, as `npm start` does on a clone), on PostgreSQL a new database the start fills.
 */
export function freshDemoGateway(prefix: string): Record<string, string> {
  if (onPostgres) {
    const { env } = scratchForProcesses(prefix);
    env.SEED_PACKAGES = String(DEMO_PACKAGES);
    return env;
  }
  const dir = tempDir(prefix);
  afterAll(() => dir.remove());
  return { DATA_DIR: join(dir.path, 'data') };
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  return page.evaluate(`axe.run(document).then((result) => result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => violation.id + ': ' + violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(', ')))`);
}

/** How a page came in, in milliseconds from its navigation (and CLS, the layout shifts' score). */
export interface PageMetrics {
  /** Layout shifts not caused by the shopper, summed over the page's life (CLS counts the worst burst: at most this). */
  cls: number;
  /** The largest contentful paint's time, and what it painted. */
  lcp: number;
  lcpElement: string;
  /** When the first cards were painted (the frame after they were put in), and whether they were on screen. */
  firstCards: number | null;
  firstCardsOnScreen: boolean;
  /** When the first page's query was sent and answered (where the time before the first cards went). */
  query: [number, number] | null;
}

/**
 * Run in the page before its own scripts (page.addInitScript): observes layout shifts and the largest contentful
 * paint (buffered: those before the observer count too), and the first cards put into #cards.
 */
export const OBSERVE_METRICS = `(() => {
  const metrics = { cls: 0, lcp: 0, lcpElement: '', firstCards: null, firstCardsOnScreen: false };
  window.__metrics = metrics;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) metrics.cls += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => {
    const entry = list.getEntries().at(-1);
    metrics.lcp = entry.startTime;
    const element = entry.element;
    metrics.lcpElement = element ? element.tagName.toLowerCase() + (element.className ? '.' + element.className : '') : '';
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  const cards = new MutationObserver(() => {
    const card = document.querySelector('#cards .card');
    if (!card) return;
    cards.disconnect();
    // Painted in the next frame: its callback runs before that paint, the timer after it.
    requestAnimationFrame(() => setTimeout(() => {
      metrics.firstCards = performance.now();
      metrics.firstCardsOnScreen = card.getBoundingClientRect().top < innerHeight;
    }));
  });
  cards.observe(document, { childList: true, subtree: true });
})()`;

/** The page's measures so far. */
export const metricsOf = (page: Page) =>
  page.evaluate(`(() => {
    const query = performance.getEntriesByType('resource').find((entry) => entry.name.includes('/graphql?variables'));
    return { ...window.__metrics, query: query ? [query.startTime, query.responseEnd] : null };
  })()`) as Promise<PageMetrics>;
