// The project's own operations (its .graphql documents, typed by codegen): the names metrics may label by.
import { Kind } from 'graphql';
import * as documents from '../generated/graphql/graphql.js';

export function knownOperationNames(): ReadonlySet<string> {
  const names = new Set<string>();
  for (const value of Object.values(documents)) {
    if (typeof value !== 'object' || value === null || !('definitions' in value)) continue;
    for (const definition of value.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION && definition.name) names.add(definition.name.value);
    }
  }
  return names;
}
