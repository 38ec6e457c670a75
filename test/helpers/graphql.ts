// Runs GraphQL against the yoga instance directly (no port), as clients would over HTTP.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import type { App } from '../../src/graphql/yoga.js';

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function graphql<T = Record<string, unknown>, V = Record<string, unknown>>(
  app: App,
  query: string | TypedDocumentNode<T, V>,
  variables?: V,
): Promise<{ status: number; body: GraphQLResponse<T> }> {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables: variables ?? {} }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLResponse<T> };
}
