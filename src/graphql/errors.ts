// Errors a client can act on carry a code; everything else is masked by yoga.
import { createGraphQLError } from 'graphql-yoga';
import { UUID_PATTERN } from '../v2/scalars.js';

export function badUserInput(message: string) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/** Any case: an identifier is found in lower case, as stored. */
const UUID = new RegExp(UUID_PATTERN.source, 'i');

export function requireUuid(value: string, argument: string): string {
  if (!UUID.test(value))
    throw badUserInput(`${argument} must be a UUID such as "3f2504e0-4f89-41d3-9a0c-0305e82c3301"`);
  return value.toLowerCase();
}
