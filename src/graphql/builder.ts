// The SchemaBuilder and its configuration: plugins, scalars, defaults. No types or fields here.
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DirectivesPlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { Kind } from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import { createGraphQLError } from 'graphql-yoga';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { TextDecimals, Utf8Json } from '../listing/rows.js';
import type { JsonValue } from '../v2/records.js';
import type { Context } from './context.js';

/** The Prisma models as the store delivers them: decimals as their exact text (see src/listing/rows.ts). */
type StoreTypes = {
  [Model in keyof PrismaTypes]: Omit<PrismaTypes[Model], 'Shape' | 'Relations'> & {
    Shape: TextDecimals<PrismaTypes[Model]['Shape']>;
    Relations: {
      [Relation in keyof PrismaTypes[Model]['Relations']]: PrismaTypes[Model]['Relations'][Relation] extends {
        Shape: infer Shape;
      }
        ? Omit<PrismaTypes[Model]['Relations'][Relation], 'Shape'> & { Shape: TextDecimals<Shape> }
        : never;
    };
  };
};

export const builder = new SchemaBuilder<{
  PrismaTypes: StoreTypes;
  Context: Context;
  DefaultFieldNullability: false;
  AuthScopes: { private: boolean };
  Scalars: {
    Decimal: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
    JSON: { Input: JsonValue; Output: unknown };
    JSONText: { Input: string; Output: string | Utf8Json };
  };
}>({
  // Federation after the plugins that wrap resolvers (scope-auth), as its documentation asks.
  plugins: [ScopeAuthPlugin, ComplexityPlugin, PrismaPlugin, DirectivesPlugin, FederationPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ private: ctx.scopes.has('private') }),
  },
  // Only the prices: the limits are checked by src/graphql/limits.ts before execution, not by resolvers.
  complexity: { defaultComplexity: 1, defaultListMultiplier: 10 },
  prisma: {
    // Types come from the Prisma models; the records themselves come from the store (src/listing/store.ts) through
    // the per-request DataLoaders, so the plugin never needs a client to load anything.
    client: (): PrismaClient => {
      throw new Error('plugin-prisma has no client: records are loaded by the store');
    },
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: null,
  },
});

const DECIMAL = /^-?\d+(\.\d+)?$/;
const DECIMAL_RULE = 'Decimal must be a string of digits with an optional sign and decimals, such as "12.50"';

/**
 * A variable's value that does not fit its scalar is the client's mistake: a GraphQLError with a code, which
 * graphql-js reports as `Variable "$x" got invalid value ...; <message>` and yoga answers 400 (any other error
 * thrown here would be masked as an unexpected one, a 500 once graphql-jit has compiled the document).
 */
const invalidValue = (rule: string) =>
  createGraphQLError(rule, {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
  });

builder.scalarType('Decimal', {
  description:
    'A decimal number carried as a string with a fixed number of decimals (each field states its scale), e.g. "1500.00". Never a float, so no precision is lost.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !DECIMAL.test(value)) throw invalidValue(DECIMAL_RULE);
    return value;
  },
  // One parameter, no variables: graphql-jit warns on every literal otherwise (a variable inside a literal is
  // never a scalar's concern; the executor substitutes it first). graphql-js words a literal's error itself.
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING || !DECIMAL.test(ast.value)) throw new TypeError(DECIMAL_RULE);
    return ast.value;
  },
});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 UTC timestamp with microseconds and a trailing Z, e.g. "2021-03-04T05:06:07.123456Z".',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string') throw invalidValue('DateTime must be an ISO 8601 string');
    return value;
  },
});

builder.addScalarType('JSON', JSONResolver);

builder.scalarType('JSONText', {
  description: 'A JSON document as its exact text, in a string: parse it to read it.',
  // Prepared text stays bytes until the answer is written (src/listing/rows.ts: Utf8Json).
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string') throw invalidValue('JSONText must be a string');
    return value;
  },
});
