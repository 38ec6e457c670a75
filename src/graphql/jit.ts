// graphql-jit compiles an operation into a specialised function: a wide page (thousands of fields) runs faster
// than through graphql-js's generic executor. Compiling costs far more than one execution (10-25 ms for a full
// page), so only a document that comes back is compiled: the project's own operations and a storefront's
// queries repeat (the parse cache hands back the same document object for the same text), while a stream of
// one-off documents never buys a compile. The operation limits (src/graphql/limits.ts) run first and bound
// what can reach the compiler (fields with fragments expanded).
import { useGraphQlJit } from '@envelop/graphql-jit';
import { type DocumentNode, getOperationAST, getVariableValues } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Executions of a document before it is compiled. */
const COMPILE_FROM = 3;

export function jitForRepeatedDocuments(): Plugin[] {
  const runs = new WeakMap<DocumentNode, number>();
  /** The executions (by their context) that run compiled. */
  const compiled = new WeakSet<object>();
  return [
    {
      onExecute({ args, setResultAndStopExecution }) {
        const count = (runs.get(args.document) ?? 0) + 1;
        runs.set(args.document, count);
        if (count < COMPILE_FROM) return;
        // graphql-jit words a variable that does not fit as "Expected type X." and drops the scalar's reason:
        // graphql-js coerces the variables first, so a bad one is answered alike before and after compiling.
        const operation = getOperationAST(args.document, args.operationName);
        const coerced = getVariableValues(args.schema, operation?.variableDefinitions ?? [], args.variableValues ?? {});
        if (coerced.errors) return setResultAndStopExecution({ errors: coerced.errors });
        compiled.add(args.contextValue as object);
      },
    },
    useGraphQlJit({}, { enableIf: ({ contextValue }) => compiled.has(contextValue as object) }) as Plugin,
  ];
}
