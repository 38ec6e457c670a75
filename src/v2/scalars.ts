// The value types of the v2 contract, as zod schemas. Each says what it expects in the words an import problem
// reports ("a string-decimal with 2 decimals"), checks only what the listing can give back byte for byte, and
// stops at its first failing check, so a value gets one clear problem. Their JSON Schema (types, patterns,
// formats) is what the OpenAPI description shows.
import { z } from 'zod';
import { formatMicroTimestamp, parseMicroTimestamp } from './timestamp.js';

/** A check's problem: `expected` says what was wanted; `got` replaces the value shown, when given. */
export function problem(ctx: z.core.ParsePayload<unknown>, expected: string, got?: string): void {
  ctx.issues.push({
    code: 'custom',
    message: expected,
    input: ctx.value,
    ...(got === undefined ? {} : { params: { got } }),
  });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL could not store the text as given (text columns and JSON alike), or null. */
export function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'text without U+0000 (PostgreSQL text cannot hold it)';
  if (LONE_SURROGATE.test(text)) return 'well-formed Unicode text (no lone surrogate)';
  return null;
}

/** A string that passes `test` (else `expected`) and that a text column can hold. */
export function textWhere(test: (value: string) => boolean, expected: string) {
  return z.string({ error: expected }).check((ctx) => {
    if (!test(ctx.value)) return problem(ctx, expected);
    const why = unstorable(ctx.value);
    if (why) problem(ctx, why);
  });
}

export const text = textWhere(() => true, 'a string');

export const bool = z.boolean({ error: 'a boolean' });

export const INT_MIN = -2147483648;
export const INT_MAX = 2147483647;

/** An integer an integer column holds. */
export const int = z
  .number({ error: 'an integer' })
  .int({ error: 'an integer', abort: true })
  .min(INT_MIN, { error: `an integer from ${INT_MIN} to ${INT_MAX} (an integer column)` })
  .max(INT_MAX, { error: `an integer from ${INT_MIN} to ${INT_MAX} (an integer column)` });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const UUID_PATTERN = UUID;

/** A lower-case UUID: the database hands identifiers back in lower case. */
export const uuid = z
  .string({ error: 'a UUID string' })
  .check((ctx) => {
    if (UUID.test(ctx.value)) return;
    if (UUID.test(ctx.value.toLowerCase())) {
      problem(ctx, 'a lower-case UUID string (the database returns identifiers in lower case)');
    } else problem(ctx, 'a UUID string');
  })
  .meta({ format: 'uuid' });

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export const url = textWhere(isHttpUrl, 'an absolute http(s) URL').meta({ format: 'uri' });

/** Schemas whose JSON Schema is plain "any JSON value" (zod's own is a recursive definition). */
export const anyJsonSchemas = new WeakSet<z.ZodType>();

/** A field whose shape the spec does not show: any JSON value by type, but the listing only ever shows null. */
export const onlyNull = z
  .json()
  .check((ctx) => {
    if (ctx.value !== null) problem(ctx, 'null (the listing only ever shows null here)');
  })
  .meta({ description: 'Only null appears in the listing.' });
anyJsonSchemas.add(onlyNull);

/**
 * A string-decimal with exactly `places` decimals, for a numeric(precision, places) column: the database keeps the
 * value, not the text, so the text must be the one the listing writes back (no leading zeros, no "-0.00").
 */
export function decimal(places: number, precision: number) {
  const what = `a string-decimal with ${places} decimal${places === 1 ? '' : 's'}`;
  const digits = precision - places;
  const shape = new RegExp(`^-?\\d+\\.\\d{${places}}$`);
  return z
    .string({ error: what })
    .regex(shape, { error: what, abort: true })
    .check((ctx) => {
      const value = ctx.value;
      const whole = value.slice(value.startsWith('-') ? 1 : 0, value.indexOf('.'));
      if (whole.length > 1 && whole.startsWith('0')) return problem(ctx, `${what} without leading zeros`);
      if (whole.length > digits) {
        return problem(
          ctx,
          `${what} and at most ${digits} digits before the point (column numeric(${precision},${places}))`,
        );
      }
      if (/^-0\.0*$/.test(value)) problem(ctx, `${what} that is not negative zero`);
    })
    .meta({ description: `Decimal number as a string with exactly ${places} decimal${places === 1 ? '' : 's'}.` });
}

/** A string holding JSON text of the given shape, kept exactly as given. */
export function jsonText(shape: (parsed: unknown) => boolean, what: string) {
  return textWhere((value) => {
    try {
      return shape(JSON.parse(value));
    } catch {
      return false;
    }
  }, `JSON text of ${what}`).meta({ contentMediaType: 'application/json' });
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** {hour, minute}: a time of day (hour up to 23) or an end of day or a duration (up to 24). */
export const isClock = (value: unknown, maxHour: number) =>
  isObject(value) &&
  Object.keys(value).length === 2 &&
  Number.isInteger(value.hour) &&
  Number.isInteger(value.minute) &&
  (value.hour as number) >= 0 &&
  (value.hour as number) <= maxHour &&
  (value.minute as number) >= 0 &&
  (value.minute as number) < 60;

/** A clock time as an HHMM integer in a string, without leading zero ("900" is 09:00). */
export const isHHMM = (value: unknown) =>
  typeof value === 'string' &&
  /^(0|[1-9]\d{0,3})$/.test(value) &&
  Number(value) % 100 < 60 &&
  Math.floor(Number(value) / 100) <= 24;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{6})?Z$/;

/** created_at as the listing writes it: formatting it back must give the same text (no 24:00, no 30 February). */
export const timestamp = textWhere((value) => {
  if (!TIMESTAMP.test(value) || value.startsWith('0000')) return false;
  const parsed = parseMicroTimestamp(value);
  return parsed !== null && formatMicroTimestamp(parsed) === value;
}, 'an ISO 8601 UTC timestamp with six fraction digits (left out when the microseconds are 0) and a trailing Z').meta({
  format: 'date-time',
});

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
export const host = textWhere((value) => HOST.test(value), 'a host name').meta({ format: 'hostname' });

const HEX_COLOUR = /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
export const hexColour = textWhere((value) => HEX_COLOUR.test(value), 'a hex colour');

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const email = textWhere((value) => EMAIL.test(value), 'an e-mail address').meta({ pattern: EMAIL.source });

/** Any JSON value (an faqs item), kept as given: only its texts, keys included, must be storable. */
export const anyJson = z.json().check((ctx) => {
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (typeof value === 'string') {
      const why = unstorable(value);
      if (why) ctx.issues.push({ code: 'custom', message: why, input: value, path });
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, [...path, i]);
    } else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        const why = unstorable(key);
        if (why) ctx.issues.push({ code: 'custom', message: why, input: key, path, params: { key } });
        else visit(item, [...path, key]);
      }
    }
  };
  visit(ctx.value, []);
});
anyJsonSchemas.add(anyJson);
