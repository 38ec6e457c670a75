// graphql-jit compiles an operation into a specialised function: a wide page (thousands of fields) runs faster
// than through graphql-js's generic executor. Compiling costs far more than one execution (10-25 ms for a full
// page), so only a document that comes back is compiled: the project's own operations and a storefront's
// queries repeat (the parse cache hands back the same document object for the same text), while a stream of
// one-off documents never buys a compile. The operation limits (src/graphql/limits.ts) run first and bound
// what can reach the compiler (fields with fragments expanded).
//
// A compiled operation answers as graphql-js does, but for the errors its resolvers throw: graphql-jit leaves
// out their locations and puts `data` before `errors`. Those are put right (locatedAsGraphqlJs), so the same
// request gets the same bytes whether or not its document has been compiled.
import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  getOperationAST,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
} from 'graphql';
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
    {
      onExecute({ args, executeFn, setExecuteFn }) {
        if (!compiled.has(args.contextValue as object)) return;
        setExecuteFn(async (run: ExecutionArgs) => locatedAsGraphqlJs(run, await executeFn(run)));
      },
    },
  ];
}

/** The result with its errors located and ordered as graphql-js gives them (errors first, with locations). */
function locatedAsGraphqlJs(run: ExecutionArgs, result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const operation = getOperationAST(run.document, run.operationName);
  const errors = result.errors.map((error) => {
    // graphql-jit's errors carry locations but no nodes, and yoga writes an error out from its nodes: made anew.
    if ((error.nodes?.length ?? 0) > 0 || !error.path || !operation) return error;
    const nodes = fieldNodesAt(run.document, operation, error.path);
    return new GraphQLError(error.message, {
      nodes,
      path: error.path,
      originalError: error.originalError ?? undefined,
      extensions: error.extensions,
    });
  });
  const { data, extensions } = result;
  return extensions === undefined ? { errors, data } : { errors, data, extensions };
}

/** The field nodes a response path names (aliases and fragments followed), as graphql-js locates an error. */
function fieldNodesAt(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  path: readonly (string | number)[],
): FieldNode[] {
  const fragments = new Map(
    document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
  );
  let levels: (readonly SelectionNode[])[] = [operation.selectionSet.selections];
  let nodes: FieldNode[] = [];
  for (const segment of path) {
    if (typeof segment === 'number') continue;
    const found: FieldNode[] = [];
    const visit = (selections: readonly SelectionNode[]) => {
      for (const selection of selections) {
        if (selection.kind === Kind.FIELD) {
          if ((selection.alias ?? selection.name).value === segment) found.push(selection);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet.selections);
        else {
          const fragment = fragments.get(selection.name.value);
          if (fragment) visit(fragment.selectionSet.selections);
        }
      }
    };
    for (const selections of levels) visit(selections);
    nodes = found;
    levels = found.flatMap((node) => (node.selectionSet ? [node.selectionSet.selections] : []));
  }
  return nodes;
}
