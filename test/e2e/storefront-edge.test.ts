// The web storefront through the project's Varnish (deploy/varnish/default.vcl, as a CDN in front of the gateway),
// in Debian's Chromium, on the suite's engine: the storefront's GATEWAY_URL is Varnish's address, the gateway's
// PURGE_URLS point back at it. A first shopper's hashed GETs reach the gateway (its documents known from the
// manifest, PERSISTED_OPERATIONS); a second shopper, with an empty browser cache, gets every query from Varnish
// without the gateway seeing one; the event stream goes through (piped), and an import reaches the open page live,
// purged from Varnish. Needs Debian's varnish and varnish-modules (CI installs them).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatePackages } from '../../src/demo/generate.js';
import { browserTestsRun } from '../helpers/chromium.js';
import { engineName, scratchForProcesses } from '../helpers/database.js';
import { freePort } from '../helpers/processes.js';
import { runScript } from '../helpers/server-process.js';
import { cards, expectClean, queriesOf, useStorefront, waitForCards } from '../helpers/storefront.js';
import { startVarnish, varnishInstalled } from '../helpers/varnish.js';

const inCi = process.env.CI === 'true';
const runs = browserTestsRun('Storefront through Varnish') && (varnishInstalled() || inCi);
if (!runs && !inCi) console.warn('Storefront through Varnish skipped: apt-get install varnish varnish-modules');
const COUNT = 60;
const MARK = 'Imported ';
const { dir, env } = scratchForProcesses('storefront-edge-');
// Varnish's port is chosen first: the gateway purges there, and Varnish is started on it once the gateway is up.
let edgePort = 0;
const gatewayEnv: Record<string, string> = {
  SEED_PACKAGES: String(COUNT),
  PERSISTED_OPERATIONS: 'examples/storefront/web/generated/persisted-documents.json',
};
beforeAll(async () => {
  edgePort = await freePort();
  gatewayEnv.PURGE_URLS = `http://127.0.0.1:${edgePort}/.xkey-purge`;
});
const rig = runs
  ? useStorefront(env, gatewayEnv, async (gateway) => {
      if (!varnishInstalled()) throw new Error('CI=true: apt-get install varnish varnish-modules');
      const port = Number(new URL(gateway.url).port);
      return startVarnish([port, port], edgePort);
    })
  : undefined;
describe.runIf(runs)(`the storefront through Varnish, on ${engineName}`, () => {
  it('serves a second shopper from Varnish, and shows an import live through it', async () => {
    // Here, not at the top: where Varnish is missing outside CI there is no rig, and the file must still load.
    const { shopper, answered } = rig as NonNullable<typeof rig>;
    const first = await shopper('/?seed=21');
    await waitForCards(first.page, 24);
    await first.page.locator('#more').dispatchEvent('click'); // where it is: scrolled to, it loads more by itself
    await waitForCards(first.page, 48);
    expectClean(first.record);

    // A second shopper, nothing in its browser's cache: every query a hit at the edge, none reaching the gateway.
    const asked = await answered('GET');
    const second = await shopper('/?seed=21');
    await waitForCards(second.page, 24);
    await second.page.locator('#more').dispatchEvent('click');
    await waitForCards(second.page, 48);
    const queries = queriesOf(second.record);
    expect(queries.length).toBeGreaterThanOrEqual(2);
    for (const query of queries) expect((await query.response())?.headers()['x-edge-cache']).toBe('hit');
    // The event stream is the one request of the page the gateway answered.
    expect((await answered('GET')) - asked).toBeLessThanOrEqual(2);

    await second.page.waitForTimeout(1500); // its stream is open and the gateway's watch has read the version
    const file = join(dir.path, 'import.json');
    const records = [...generatePackages({ count: COUNT })].map((r) => ({ ...r, title: `${MARK}${r.title}` }));
    writeFileSync(file, JSON.stringify(records));
    const result = await runScript('src/cli/import.ts', env, [file]);
    expect(result.code, result.stderr).toBe(0);
    await expect
      .poll(() => second.page.locator('#live').textContent(), { timeout: 15_000 })
      .toContain('The listing changed');
    const titles = await cards(second.page).locator('h3').allTextContents();
    expect(titles).toHaveLength(48);
    expect(titles.every((title) => title.startsWith(MARK))).toBe(true);
    // And a new shopper after the import: Varnish was purged, so the first page it gets is the new listing's.
    const third = await shopper('/?seed=21');
    await waitForCards(third.page, 24);
    expect((await cards(third.page).locator('h3').allTextContents()).every((title) => title.startsWith(MARK))).toBe(
      true,
    );
    expectClean(second.record);
    expectClean(third.record);
  }, 120_000);
});
