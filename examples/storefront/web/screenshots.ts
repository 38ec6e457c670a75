// `npm run storefront:screenshots`: the pictures of docs/storefront.md, taken in Debian's Chromium from a fresh
// gateway on the demo listing (a new data directory: the prepared demo database, as `npm start` on a clone) and
// this storefront in front of it: the listing in one seed's order with two filters chosen, at 390 x 844 (a phone:
// the chips, the cards first) and 1280 x 900 (a desktop: the sidebar), to docs/storefront-390.png and
// docs/storefront-1280.png. The demo data and the seed are fixed, so the same code takes the same pictures.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../../test/helpers/chromium.js';
import { startServer } from '../../../test/helpers/server-process.js';
import { startStorefront } from './server.js';

const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
/** Weddings priced in US dollars, in the order of seed 7. */
const SHOWN = '/?seed=7&categories=1&currency=USD';
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];

const dataDir = mkdtempSync(join(tmpdir(), 'storefront-screenshots-'));
const gateway = await startServer({
  DATA_DIR: join(dataDir, 'data'),
  PERSISTED_OPERATIONS: 'examples/storefront/web/generated/persisted-documents.json',
});
const storefront = await startStorefront({ port: 0, host: '127.0.0.1', gatewayUrl: gateway.url });
const browser = await launchChromium();
try {
  for (const viewport of SIZES) {
    // One CSS pixel one image pixel: the pictures stay small, and show the page at the size it is drawn.
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${storefront.url}${SHOWN}`);
    await page.locator('#cards .card').nth(11).waitFor();
    await page.locator('#cards:not([aria-busy])').waitFor();
    // Every picture on screen in (those further down wait for scrolling: loading="lazy"). Asked by evaluate: the
    // page's Content-Security-Policy refuses the eval a waitForFunction of a string would need.
    const picturesIn = `[...document.images].every((image) => image.complete || image.getBoundingClientRect().top > innerHeight)`;
    while (!(await page.evaluate(picturesIn))) await new Promise((resolve) => setTimeout(resolve, 50));
    const file = join(DOCS, `storefront-${viewport.width}.png`);
    await page.screenshot({ path: file });
    console.log(`${file}: ${Math.round(statSync(file).size / 1024)} kB`);
    await context.close();
  }
} finally {
  await browser.close();
  await storefront.close();
  await gateway.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
