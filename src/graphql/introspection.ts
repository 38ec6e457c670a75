// GRAPHQL_INTROSPECTION=false: the schema is not given away. Besides introspection itself (yoga's plugin) and
// "Did you mean" suggestions, that means federation's `{ _service { sdl } }`, which prints the whole schema: a
// router composes from a supergraph file made with `npm run subgraph:sdl` instead.

import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const noServiceSdl: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '_service' && context.getParentType() === context.getSchema().getQueryType()) {
      context.reportError(
        new GraphQLError('The schema is not served here (introspection is off), _service included.', { nodes: node }),
      );
    }
  },
});

/**
 * Validation rules only, so every door that validates a document applies them: yoga's useDisableIntrospection
 * decides per request in onRequestParse, a hook the Node edge does not run (src/graphql/edge-operations.ts), and
 * the edge then answered the schema. graphql's own rule gives the refusal that plugin gives.
 */
export function introspectionOff(): Plugin[] {
  return [
    {
      onValidate: ({ addValidationRule }) => {
        addValidationRule(NoSchemaIntrospectionCustomRule);
        addValidationRule(noServiceSdl);
      },
    },
    blockFieldSuggestionsPlugin(),
  ];
}
