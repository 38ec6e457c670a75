// The OpenAPI 3.1 description of the v2 endpoint, served at /v2/openapi.json. The record schemas (field order,
// types, nullability, decimal scales) are derived from the v2 contract (src/v2/contract.ts); a test validates real
// responses against them.
import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../listing/page.js';
import '../v2/contract.js'; // registers the record schemas under their names
import { anyJsonSchemas, INT_MAX, INT_MIN } from '../v2/scalars.js';

type Schema = Record<string, unknown>;

/** Every registered record as a component; "any JSON value" spelled plainly; no per-schema $schema or $id. */
function recordSchemas(): Record<string, Schema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    uri: (id) => `#/components/schemas/${id}`,
    override: ({ zodSchema, jsonSchema }) => {
      if (!anyJsonSchemas.has(zodSchema as unknown as z.ZodType)) return;
      for (const key of Object.keys(jsonSchema)) if (key !== 'description') delete (jsonSchema as Schema)[key];
    },
  });
  return Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => name !== '__shared')
      .map(([name, schema]) => {
        const { $schema: _schema, $id: _id, ...rest } = schema as Schema;
        return [name, rest];
      }),
  );
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema, description: string) => ({ description, content: { 'application/json': { schema } } });
const detail = (description: string) => json(ref('Error'), description);

const schemas: Record<string, Schema> = {
  ...recordSchemas(),
  Error: {
    type: 'object',
    description: 'An error, as Django REST Framework reports it.',
    properties: { detail: { type: 'string' } },
    required: ['detail'],
    additionalProperties: false,
  },
  Metadata: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      renders: { type: 'array', items: { type: 'string' } },
      parses: { type: 'array', items: { type: 'string' } },
    },
    required: ['name', 'description', 'renders', 'parses'],
    additionalProperties: false,
  },
};

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Package listing v2',
    version: '2',
    description:
      'The legacy read-only listing of bookable photography packages, as the Django REST Framework service rendered it. The same data is available over GraphQL at /graphql.',
  },
  paths: {
    '/v2/local-package-list/': {
      get: {
        operationId: 'listPackages',
        summary: 'A page of the listed packages in the seeded order.',
        parameters: [
          {
            name: 'format',
            in: 'query',
            schema: { type: 'string', enum: ['api', 'json', ''] },
            description: 'Response representation; each gives this JSON (an empty value counts as absent).',
          },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'string' },
            description: `Page size, default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT} (larger values are capped), read as Python's int() reads it. A value that is not a positive integer means the default.`,
          },
          {
            name: 'offset',
            in: 'query',
            schema: { type: 'string' },
            description:
              "Zero-based index of the first record, default 0, read as Python's int() reads it. A value that is not a non-negative integer means 0; the links carry any other offset back as sent.",
          },
          {
            name: 'seed',
            in: 'query',
            schema: { type: 'integer', minimum: INT_MIN, maximum: INT_MAX },
            description: 'Fixes the pseudo-random order. When absent the service picks one and the links carry it.',
          },
        ],
        responses: {
          '200': json(ref('Page'), 'The page. `Accept: application/json; indent=N` indents it.'),
          '400': detail('The seed is not an integer.'),
          '401': detail('A key is required (V2_API_KEYS) and none or a wrong one was sent.'),
          '404': detail('Unknown format.'),
          '405': detail('Method not allowed.'),
          '406': detail('The Accept header admits no JSON.'),
          '429': detail('Too many requests; Retry-After says when to try again.'),
          '500': detail('Server error; no internals are shown.'),
          '503': detail('The database is not available right now; Retry-After says when to try again.'),
        },
      },
      head: {
        operationId: 'headPackages',
        summary: 'As GET, without a body.',
        responses: { '200': { description: 'Headers only.' } },
      },
      options: {
        operationId: 'describePackages',
        summary: 'DRF metadata.',
        responses: { '200': json(ref('Metadata'), 'Metadata.') },
      },
    },
  },
  components: { schemas },
};
