// Errors a client can act on carry a code; everything else is masked by yoga.
import type { GraphQLError } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { FilterReadsBusyError, type MatchSets } from '../listing/matches.js';
import { UUID_PATTERN } from '../v2/scalars.js';

export function badUserInput(message: string) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/** The same error (message, locations, path, cause) with other extensions: its code or HTTP status settled. */
export function withExtensions(error: GraphQLError, extensions: Record<string, unknown>): GraphQLError {
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}

/** Any case: an identifier is found in lower case, as stored. */
const UUID = new RegExp(UUID_PATTERN.source, 'i');

/** The identifier as stored (lower case), or null when it is not a UUID. */
export function uuidOrNull(value: unknown): string | null {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : null;
}

export function requireUuid(value: string, argument: string): string {
  if (!UUID.test(value))
    throw badUserInput(`${argument} must be a UUID such as "3f2504e0-4f89-41d3-9a0c-0305e82c3301"`);
  return value.toLowerCase();
}

/** How soon a client refused for load may try again. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * The filters' match sets with their load refusal as a GraphQL error a client can act on: 429 `TOO_BUSY` with
 * Retry-After and a message saying why; thrown as a GraphQL error, so it is neither masked nor logged.
 */
export function graphqlMatchSets(matchSets: MatchSets): MatchSets {
  return {
    kept: (filter, version, order) => matchSets.kept(filter, version, order),
    readAs: (filter, version, order) => matchSets.readAs(filter, version, order),
    async positions(sql, filter, version, order, caller) {
      try {
        return await matchSets.positions(sql, filter, version, order, caller);
      } catch (error) {
        if (!(error instanceof FilterReadsBusyError)) throw error;
        throw createGraphQLError(error.message, {
          extensions: {
            code: 'TOO_BUSY',
            http: { status: 429, headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) } },
          },
        });
      }
    },
  };
}
