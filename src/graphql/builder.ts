// The SchemaBuilder and its configuration: plugins, scalars, defaults. No types or fields here.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { JsonValue } from '../v2/records.js';
import type { Context } from './context.js';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: Context;
  DefaultFieldNullability: false;
  Scalars: {
    Decimal: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
    JSON: { Input: JsonValue; Output: unknown };
  };
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    // Nested records come from the per-request DataLoaders; this client only backs plugin-prisma itself.
    client: (ctx) => ctx.loaders.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: null,
  },
});

const DECIMAL = /^-?\d+(\.\d+)?$/;

builder.scalarType('Decimal', {
  description:
    'A decimal number carried as a string with a fixed number of decimals (each field states its scale), e.g. "1500.00". Never a float, so no precision is lost.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !DECIMAL.test(value))
      throw new TypeError('Decimal must be a string such as "12.50"');
    return value;
  },
});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 UTC timestamp with microseconds and a trailing Z, e.g. "2021-03-04T05:06:07.123456Z".',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string') throw new TypeError('DateTime must be an ISO 8601 string');
    return value;
  },
});

builder.addScalarType('JSON', JSONResolver);
