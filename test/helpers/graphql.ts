// Runs GraphQL against the yoga instance directly (no port), as clients would over HTTP.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { type ApiKey, hashKey } from '../../src/api-keys.js';
import type { App } from '../../src/app.js';

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; [key: string]: unknown } }[];
}

/** A key with every scope, for tests that read the private fields: pass `keys` to createApp's settings. */
export const PRIVATE_KEY = 'lgw_test-key-with-the-private-scope';
export const TEST_KEYS: ApiKey[] = [{ name: 'tests', scopes: new Set(['private']), hash: hashKey(PRIVATE_KEY) }];

export async function graphql<T = Record<string, unknown>, V = Record<string, unknown>>(
  app: App,
  query: string | TypedDocumentNode<T, V>,
  variables?: V,
  options: { key?: string } = {},
): Promise<{ status: number; body: GraphQLResponse<T> }> {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
    },
    body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables: variables ?? {} }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLResponse<T> };
}
