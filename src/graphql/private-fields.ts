// Personal data (e-mail, phone, payment and CRM account ids) is readable on GraphQL only with an API key that
// carries the `private` scope. Without it each such field is null, and the answer carries ONE `FORBIDDEN` error
// naming the fields withheld, not one per package: a page of 100 stays readable, and the client learns why.
import type { GraphQLField, GraphQLResolveInfo } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Context } from './context.js';

/**
 * Handed to scope-auth instead of the message it would otherwise turn into one GraphQLError (stack trace
 * included) per withheld field and package: that was a quarter of the CPU of an anonymous full page. The
 * resolver below never throws it.
 */
const WITHHELD = new Error('private field withheld');

/** Field options for a private field (Pothos scope-auth): null and noted when the caller lacks the scope. */
export const privateField = {
  authScopes: { private: true },
  unauthorizedError: () => WITHHELD,
  unauthorizedResolver: (_parent: unknown, _args: unknown, ctx: Context, info: GraphQLResolveInfo) => {
    ctx.withheld.add(`${info.parentType.name}.${info.fieldName}`);
    return null;
  },
} as const;

/** Whether a field of the built schema is private (declared with `privateField`). */
export const isPrivateField = (field: GraphQLField<unknown, unknown>): boolean =>
  Boolean((field.extensions.pothosOptions as { authScopes?: unknown } | undefined)?.authScopes);

export function withheldFieldsError(fields: Iterable<string>) {
  const names = [...fields].sort();
  return createGraphQLError(
    `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} private: ${names.length === 1 ? 'it is' : 'they are'} null in this answer. Reading ${names.length === 1 ? 'it' : 'them'} needs an API key with the "private" scope (Authorization: Bearer <key>).`,
    { extensions: { code: 'FORBIDDEN', fields: names } },
  );
}

/** Adds the one FORBIDDEN error to a result whose private fields were withheld. */
export function reportWithheldFields(): Plugin<Context> {
  return {
    onExecute({ args }) {
      const context = args.contextValue;
      return {
        onExecuteDone({ result, setResult }) {
          if (context.withheld.size === 0 || !('data' in result)) return;
          setResult({ ...result, errors: [...(result.errors ?? []), withheldFieldsError(context.withheld)] });
        },
      };
    },
  };
}
