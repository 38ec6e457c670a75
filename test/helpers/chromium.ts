// Debian's Chromium driven by playwright-core (no browser is ever downloaded): where it is, whether a browser test
// runs, and how it is started. Without Chromium a browser test is skipped with one line saying how to install it,
// so that `npm test` passes on a newcomer's machine; under CI (CI=true) a missing browser fails the run instead.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';

/** Whether the browser tests run: with a Chromium, or under CI (where its absence then fails them). */
export function browserTestsRun(what: string): boolean {
  if (!found && !inCi) {
    console.warn(`${what} skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
  }
  return found || inCi;
}

/** Chromium headless, with nothing of its own reaching the network (updates, sync, field trials, QUIC). */
export async function launchChromium(): Promise<Browser> {
  if (!found) throw new Error(`CI=true and no Chromium at ${CHROMIUM}: install it (apt-get install chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
