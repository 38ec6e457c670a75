// The query parameters of GET /v2/local-package-list/, read as the legacy Django REST Framework view read
// them (LimitOffsetPagination): a limit that is not a positive integer means the default, a larger one is
// capped at the maximum; an offset that is not a non-negative integer means 0. The seed must be an integer.
import { DEFAULT_LIMIT, MAX_LIMIT } from '../listing/page.js';

export type ListingParams = { limit: number; offset: number; seed: number | undefined };
export type ParamsResult = { ok: true; params: ListingParams } | { ok: false; status: 400 | 404; detail: string };

const SEED_MIN = -(2 ** 31);
const SEED_MAX = 2 ** 31 - 1;
const FORMATS = new Set(['api', 'json']);

/** Django's QueryDict hands the view the last value of a repeated key. */
function last(query: URLSearchParams, key: string): string | undefined {
  const values = query.getAll(key);
  return values.length > 0 ? values[values.length - 1] : undefined;
}

/** Python's int() of a string: surrounding blanks, an optional sign, digits with single underscores between. */
function pythonInt(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[+-]?\d+(_\d+)*$/.test(trimmed)) return undefined;
  return Number(trimmed.replaceAll('_', ''));
}

/** DRF's _positive_int: negative (or, strict, zero) is refused; a cutoff caps the value. */
function positiveInt(text: string | undefined, strict: boolean, cutoff?: number): number | undefined {
  if (text === undefined) return undefined;
  const value = pythonInt(text);
  if (value === undefined || value < 0 || (strict && value === 0)) return undefined;
  return cutoff === undefined ? value : Math.min(value, cutoff);
}

export function parseListingParams(query: URLSearchParams): ParamsResult {
  const format = last(query, 'format');
  if (format !== undefined && !FORMATS.has(format)) return { ok: false, status: 404, detail: 'Not found.' };

  const limit = positiveInt(last(query, 'limit'), true, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const offset = positiveInt(last(query, 'offset'), false) ?? 0;

  const seedText = last(query, 'seed');
  let seed: number | undefined;
  if (seedText !== undefined) {
    seed = pythonInt(seedText);
    if (seed === undefined || seed < SEED_MIN || seed > SEED_MAX) {
      return {
        ok: false,
        status: 400,
        detail: `Invalid seed ${JSON.stringify(seedText)}: expected an integer from ${SEED_MIN} to ${SEED_MAX}.`,
      };
    }
  }
  // Offsets past any possible listing are simply empty pages; clamp so GraphQL's 32-bit Int holds them.
  return { ok: true, params: { limit, offset: Math.min(offset, SEED_MAX), seed } };
}
