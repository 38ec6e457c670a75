// graphql-jit's compiled operations are kept for a bounded number of documents (src/graphql/jit.ts): a stream of
// distinct queries that each come back never holds more than the bound, answers stay those of graphql-js, and a
// document that lost its place runs uncompiled until it has come back again.
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { jitForRepeatedDocuments } from '../../src/graphql/jit.js';

const schema = createSchema({
  typeDefs: 'type Query { echo(n: Int!): Int! }',
  resolvers: { Query: { echo: (_root: unknown, args: { n: number }) => args.n } },
});

function setUp(bound: number) {
  const jit = jitForRepeatedDocuments(bound);
  const yoga = createYoga({ schema, plugins: [jit], logging: false });
  const ask = async (n: number) => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ echo(n: ${n}) }` }),
    });
    return (await response.json()) as { data?: { echo: number } };
  };
  return { jit, ask };
}

describe('compiled operations', () => {
  it('are kept for at most the bound of documents, however many distinct documents come back', async () => {
    const { jit, ask } = setUp(4);
    for (let n = 0; n < 40; n++) {
      for (let run = 0; run < 4; run++) expect(await ask(n)).toEqual({ data: { echo: n } });
    }
    expect(jit.compiled()).toEqual({ documents: 4, compilations: 40 });
  });

  it('compile a document on its third run, and again only after it has come back three more times', async () => {
    const { jit, ask } = setUp(2);
    await ask(1);
    await ask(1);
    expect(jit.compiled()).toEqual({ documents: 0, compilations: 0 });
    await ask(1);
    expect(jit.compiled()).toEqual({ documents: 1, compilations: 1 });
    // Two others take both places: document 1 is dropped, and its runs are counted afresh.
    for (const n of [2, 3]) for (let run = 0; run < 3; run++) await ask(n);
    expect(jit.compiled()).toEqual({ documents: 2, compilations: 3 });
    await ask(1);
    await ask(1);
    expect(jit.compiled().compilations).toBe(3);
    expect(await ask(1)).toEqual({ data: { echo: 1 } });
    expect(jit.compiled().compilations).toBe(4);
  });
});
