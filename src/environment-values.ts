// The kinds of value the environment's variables take (src/environment.ts): each a zod schema that trims, checks
// and converts the text, with what it accepts as `accepts` meta (docs/configuration.md's "accepts" column) and the
// same words in its error message, after "must be ".
import { z } from 'zod';
import { parseApiKeys } from './api-keys.js';

/** Whether `value` is a URL of one of these schemes, with a host. */
function isServiceUrl(value: string, protocols: string[]): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A URL of one of these schemes, with a host; `accepts` is the error message after "must be ". */
const serviceUrl = (protocols: string[], accepts: string) =>
  z
    .string()
    .trim()
    .refine((value) => isServiceUrl(value, protocols), `must be ${accepts}`)
    .meta({ accepts });

export const postgresUrl = serviceUrl(
  ['postgres:', 'postgresql:'],
  'a postgres:// or postgresql:// URL with a host, e.g. postgresql://user@127.0.0.1:5432/listing',
);
export const redisUrl = serviceUrl(
  ['redis:', 'rediss:'],
  'a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379',
);

export const httpUrl = serviceUrl(['http:', 'https:'], 'an http:// or https:// URL, e.g. http://otel-collector:4318');

/** Comma-separated http(s) URLs; empty for none. */
const httpUrlsAccepts = 'http:// or https:// URLs separated by commas, e.g. http://varnish:6081/.xkey-purge';
export const httpUrls = z
  .string()
  .trim()
  .transform((value) => (value === '' ? [] : value.split(',').map((url) => url.trim())))
  .refine((urls) => urls.every((url) => isServiceUrl(url, ['http:', 'https:'])), `must be ${httpUrlsAccepts}`)
  .meta({ accepts: httpUrlsAccepts });

export const wholeNumber = (min: number, max: number) => {
  const accepts = `a whole number from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d+$/, `must be ${accepts}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be ${accepts}`)
    .meta({ accepts });
};

/** Seconds, fractions allowed (`0.5`), into milliseconds. */
export const seconds = (min: number, max: number) => {
  const accepts = `a number of seconds from ${min} to ${max}`;
  return z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, `must be ${accepts}`)
    .transform(Number)
    .refine((s) => s >= min && s <= max, `must be ${accepts}`)
    .transform((s) => Math.round(s * 1000))
    .meta({ accepts: `${accepts} (fractions allowed)` });
};

export const flag = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .meta({ accepts: '`true` or `false`' });

/** Any text but the empty one. */
export const text = (accepts: string) => z.string().trim().min(1, 'must not be empty').meta({ accepts });

const originsAccepts = '* or a comma-separated list of exact origins such as https://shop.example.com';
export const origins = z
  .string()
  .trim()
  .transform((value) => value.split(',').map((origin) => origin.trim()))
  .refine(
    (list) =>
      (list.length === 1 && list[0] === '*') ||
      list.every((origin) => {
        try {
          return new URL(origin).origin === origin;
        } catch {
          return false;
        }
      }),
    `must be ${originsAccepts}`,
  )
  .meta({ accepts: originsAccepts });

export const apiKeys = (withScopes: boolean) =>
  z
    .string()
    .trim()
    .transform((value, ctx) => {
      const parsed = parseApiKeys(value, withScopes);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    })
    .meta({
      accepts: `comma-separated \`${withScopes ? 'name:scopes:sha256-hex' : 'name:sha256-hex'}\` entries, as \`npm run api-key\` prints them`,
    });

export const publicUrlAccepts = 'an http(s) URL without query, e.g. https://api.example.com';
