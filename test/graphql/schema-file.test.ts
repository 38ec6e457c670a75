// src/graphql/schema.graphql is the printed schema, committed for reviewers and clients: it must match the
// code. When this fails, run `npm run codegen` and commit the result.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, schemaText } from '../../src/graphql/schema.js';

describe('schema.graphql', () => {
  it('is up to date with the Pothos schema (npm run codegen)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(schemaText());
  });
});
