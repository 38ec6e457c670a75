// Errors a client can act on carry a code; everything else is masked by yoga.
import { createGraphQLError } from 'graphql-yoga';

export function badUserInput(message: string) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireUuid(value: string, argument: string): string {
  if (!UUID.test(value))
    throw badUserInput(`${argument} must be a UUID such as "3f2504e0-4f89-41d3-9a0c-0305e82c3301"`);
  return value.toLowerCase();
}
