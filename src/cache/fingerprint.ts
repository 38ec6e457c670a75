// What, besides the listing version and the request, shapes every answer of this instance: the build (its code
// and dependencies) and the settings that decide what an answer is or whether a request is refused. Both are in
// every cache key (response-cache.ts), so instances sharing Redis share answers only when they would have made
// the same ones: an instance with introspection off never serves another's introspection answer, a lower limit
// is never walked around by a kept answer, and a new build never serves the old build's bytes.
//
// The refusals that run after the cache (well-formed parameters, persisted-only, the limits, introspection) are
// functions of the request, which the key holds, and of these settings: a kept answer (a 200 without errors) is
// therefore only ever found by a request this instance would also have answered.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildFingerprint } from '../build-fingerprint.js';
import type { Config } from '../config.js';

/** The settings that shape answers (the rest shape headers added per request, or act before the cache). */
// Not SEED_POOL: a key names the draw's index, and the seed at an index is the same in a pool of any size.
// APQ on or off, and the largest document it registers (a registration's request holds its document, so a kept
// answer would walk around a lower bound); not its other bounds, which count what callers did, never what the
// request is: with APQ off, a hash the manifest lacks is refused rather than answered.
export type AnswerSettings = Pick<Config, 'limits' | 'introspection' | 'persistedOperations' | 'apq'>;

/** Automatic persisted queries run unless turned off (APQ_MAX_QUERIES=0) or under PERSISTED_OPERATIONS_ONLY. */
export const apqOn = (settings: Pick<Config, 'persistedOperations' | 'apq'>): boolean =>
  settings.apq.maxQueries > 0 && !settings.persistedOperations.only;

/** The fingerprint of this build and of these settings, for cache keys. */
export function answerFingerprint(settings: AnswerSettings): string {
  const { file, only } = settings.persistedOperations;
  // The manifest's content, not its path: the same operations under another path are the same answers.
  const manifest = file ? createHash('sha256').update(readFileSync(file)).digest('base64url') : null;
  const apq = apqOn(settings) && settings.apq.maxDocumentBytes;
  const shaping = [settings.limits, settings.introspection, only, manifest, apq];
  return createHash('sha256')
    .update(`${buildFingerprint()}\n${JSON.stringify(shaping)}`)
    .digest('base64url')
    .slice(0, 22);
}
