// The profiles of settings the edge is held to yoga under (settings-matrix.test.ts), written as the environment
// would set them, and the matrix they make: which profiles set each variable off its default. Every variable
// src/request-settings.ts marks 'request' must be set by one; settings that do not get in each other's way share a
// profile, so that the run stays short.
import { createHash } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { environment } from '../../src/environment.js';
import { type EnvironmentVariable, requestSettings } from '../../src/request-settings.js';
import { PRIVATE_KEY } from '../helpers/graphql.js';

/** A key without scopes (GraphQL), and a key of the v2 path. */
export const READER_KEY = 'lgw_test-key-without-scopes';
export const V2_KEY = 'lgw_test-key-of-the-v2-path';
export const SHOP = 'https://shop.example';

/** The manifest's one document (the client preset's form: "sha256:<hex>" -> document). */
export const MANIFEST_DOCUMENT =
  'query Cards($seed: Int) { packages(limit: 3, seed: $seed) { count results { id title } } }';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The persisted operations manifest, as written to `path`. */
export const manifestText = () => JSON.stringify({ [`sha256:${hex(MANIFEST_DOCUMENT)}`]: MANIFEST_DOCUMENT });

/** Stands for the OTLP receiver's address: a profile that sets it runs with tracing on, to a receiver of its own. */
export const RECEIVER = 'http://otlp-receiver.test:4318';

export interface Profile {
  name: string;
  env: Partial<Record<EnvironmentVariable, string>>;
}

/** The profiles; `manifest`: the path of the manifest file, `redis`: a Redis URL (each side gets a database of it). */
export function profiles({ manifest, redis }: { manifest: string; redis: string }): Profile[] {
  const apiKeys = `tests:private:${hex(PRIVATE_KEY)},reader::${hex(READER_KEY)}`;
  const tightLimits = {
    GRAPHQL_MAX_TOKENS: '120',
    GRAPHQL_MAX_DEPTH: '4',
    GRAPHQL_MAX_ALIASES: '1',
    GRAPHQL_MAX_DIRECTIVES: '1',
    GRAPHQL_MAX_FIELDS: '12',
    GRAPHQL_MAX_COST: '800',
  };
  return [
    { name: 'the defaults', env: {} },
    {
      name: 'introspection off, one seed in the pool, own Cache-Control and CDN age, links on [::]:8080',
      env: {
        GRAPHQL_INTROSPECTION: 'false',
        SEED_POOL: '1',
        CACHE_CONTROL: 'public, max-age=60',
        CDN_MAX_AGE: '600',
        STALE_IF_ERROR: '60',
        HOST: '::',
        PORT: '8080',
      },
    },
    {
      name: 'persisted operations only, API keys with scopes, a public URL',
      env: {
        PERSISTED_OPERATIONS: manifest,
        PERSISTED_OPERATIONS_ONLY: 'true',
        API_KEYS: apiKeys,
        PUBLIC_URL: 'https://api.example.com/listing',
      },
    },
    {
      name: 'APQ and the response cache off, a manifest, no seed pool, small bodies, two connections, no streams',
      env: {
        APQ_MAX_QUERIES: '0',
        PERSISTED_OPERATIONS: manifest,
        RESPONSE_CACHE_BYTES: '0',
        SEED_POOL: '0',
        MAX_BODY_BYTES: '1024',
        MAX_CONNECTIONS_PER_ADDRESS: '2',
        SSE_MAX_CONNECTIONS: '0',
        FILTER_CACHE_BYTES: '0',
        RATE_LIMIT: '0',
      },
    },
    {
      name: 'tight GraphQL limits, APQ bounded, API keys, CORS for a list of origins',
      env: {
        ...tightLimits,
        APQ_MAX_BYTES: '65536',
        APQ_REGISTRATIONS: '2',
        APQ_TTL: '3600',
        APQ_MAX_DOCUMENT_BYTES: '1024',
        API_KEYS: apiKeys,
        CORS_ORIGINS: `${SHOP},https://admin.example`,
        REQUEST_TIMEOUT: '5',
        SSE_MAX_PER_CALLER: '1',
      },
    },
    {
      name: 'behind a trusted proxy, a budget of 4 requests in memory',
      env: { TRUST_PROXY: 'true', RATE_LIMIT: '4', RATE_LIMIT_WINDOW: '30', CORS_ORIGINS: SHOP },
    },
    {
      name: 'Redis: the response cache, APQ and the budget shared there, v2 keys required, a public URL',
      env: {
        REDIS_URL: redis,
        REDIS_TIMEOUT: '1',
        APQ_REDIS_MAX_BYTES: '4096',
        APQ_MAX_BYTES_PER_CALLER: '2048',
        RATE_LIMIT: '1000',
        V2_API_KEYS: `v2:${hex(V2_KEY)}`,
        PUBLIC_URL: 'http://listing.example',
      },
    },
    {
      name: 'Redis behind a trusted proxy, a budget of 4 requests there, tracing on',
      env: {
        REDIS_URL: redis,
        REDIS_TIMEOUT: '1',
        TRUST_PROXY: 'true',
        RATE_LIMIT: '4',
        OTEL_EXPORTER_OTLP_ENDPOINT: RECEIVER,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${RECEIVER}/v1/traces`,
      },
    },
  ];
}

/** The variable's value as the configuration reads it (undefined: it is not set). */
const parsed = (name: EnvironmentVariable, value: string | undefined) =>
  JSON.stringify(environment.parse(value === undefined ? {} : { [name]: value })[name]);

/** Each variable with the profiles that set it off its default. */
export function matrix(all: Profile[]): Record<EnvironmentVariable, string[]> {
  const names = Object.keys(requestSettings) as EnvironmentVariable[];
  return Object.fromEntries(
    names.map((name) => [
      name,
      all
        .filter(({ env }) => env[name] !== undefined && parsed(name, env[name]) !== parsed(name, undefined))
        .map((profile) => profile.name),
    ]),
  ) as Record<EnvironmentVariable, string[]>;
}

/** The profile's configuration (throws, as a start would, on a value the environment refuses). */
export const configOf = (profile: Profile) => loadConfig(profile.env);
