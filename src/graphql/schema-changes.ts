// What a schema change does to clients (npm run schema:check): the changes between an earlier schema and the one
// the code builds, as @graphql-inspector/core classifies them, with the breaking ones that were accepted (each
// with its reason, in src/graphql/accepted-changes.json) set apart; and the clients' documents validated against
// the schema.
import { type Change, CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema, type GraphQLSchema, parse, validate } from 'graphql';

/** A breaking change made on purpose: its type and path as the check names them, and why clients can bear it. */
export interface AcceptedChange {
  type: string;
  path: string;
  reason: string;
}

export interface SchemaComparison {
  /** Breaking changes not accepted: the check fails on them. */
  breaking: Change[];
  /** Breaking changes listed in the accepted changes, with their reasons. */
  accepted: { change: Change; reason: string }[];
  /** Dangerous and safe changes, for the record. */
  others: Change[];
}

const isBreaking = (change: Change) => change.criticality.level === CriticalityLevel.Breaking;

/**
 * The changes from `before` to `after` (both SDL: a schema built in code and the same schema read back from its
 * SDL differ in how directives are carried); breaking ones named in `accepted` are set apart.
 */
export async function compareSchemas(
  before: string,
  after: string,
  accepted: readonly AcceptedChange[],
): Promise<SchemaComparison> {
  const changes = await diff(buildSchema(before), buildSchema(after));
  const reasonFor = (change: Change) =>
    accepted.find((entry) => entry.type === change.type && entry.path === change.path)?.reason;
  const breaking = changes.filter(isBreaking);
  return {
    breaking: breaking.filter((change) => reasonFor(change) === undefined),
    accepted: breaking.flatMap((change) => {
      const reason = reasonFor(change);
      return reason === undefined ? [] : [{ change, reason }];
    }),
    others: changes.filter((change) => !isBreaking(change)),
  };
}

/** Each document that does not parse or validate against the schema, with the reasons, by its name. */
export function invalidDocuments(schema: GraphQLSchema, documents: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const [name, text] of Object.entries(documents)) {
    try {
      const errors = validate(schema, parse(text));
      for (const error of errors) problems.push(`${name}: ${error.message}`);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  return problems;
}

/** One line for a change: its path, what it is and, when accepted, why. */
export function describeChange(change: Change, reason?: string): string {
  return `${change.path ?? '(schema)'} [${change.type}] ${change.message}${reason ? ` (accepted: ${reason})` : ''}`;
}
