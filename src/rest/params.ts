// The query parameters of GET /v2/local-package-list/, read as the legacy Django REST Framework view read them
// (LimitOffsetPagination): each through Python's int(); a limit that is not a positive integer means the default
// and a larger one is capped at the maximum; an offset that is not a non-negative integer means 0, and any other
// offset is kept as sent, however large (the links carry it back). The seed must be a 32-bit integer.
import { DEFAULT_LIMIT, MAX_LIMIT } from '../listing/page.js';
import { INT_MAX, INT_MIN } from '../v2/scalars.js';
import { pythonInt } from './python-int.js';

export type ListingParams = { limit: number; offset: bigint; seed: number | undefined };
export type ParamsResult = { ok: true; params: ListingParams } | { ok: false; status: 400; detail: string };

/** A seed is a GraphQL Int: a signed 32-bit integer. */
const [SEED_MIN, SEED_MAX] = [INT_MIN, INT_MAX];

/** Django's QueryDict hands the view the last value of a repeated key. */
function last(query: URLSearchParams, key: string): string | undefined {
  const values = query.getAll(key);
  return values.length > 0 ? values[values.length - 1] : undefined;
}

/** DRF's _positive_int: negative (or, strict, zero) is refused. */
function positiveInt(text: string | undefined, strict: boolean): bigint | undefined {
  if (text === undefined) return undefined;
  const value = pythonInt(text);
  if (value === undefined || value < 0n || (strict && value === 0n)) return undefined;
  return value;
}

export function parseListingParams(query: URLSearchParams): ParamsResult {
  const limit = positiveInt(last(query, 'limit'), true);
  const offset = positiveInt(last(query, 'offset'), false) ?? 0n;

  const seedText = last(query, 'seed');
  let seed: number | undefined;
  if (seedText !== undefined) {
    const value = pythonInt(seedText);
    if (value === undefined || value < BigInt(SEED_MIN) || value > BigInt(SEED_MAX)) {
      return {
        ok: false,
        status: 400,
        detail: `Invalid seed ${JSON.stringify(seedText)}: expected an integer from ${SEED_MIN} to ${SEED_MAX}.`,
      };
    }
    seed = Number(value);
  }
  const capped = limit === undefined ? DEFAULT_LIMIT : Number(limit > BigInt(MAX_LIMIT) ? BigInt(MAX_LIMIT) : limit);
  return { ok: true, params: { limit: capped, offset, seed } };
}
