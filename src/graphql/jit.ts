// graphql-jit compiles an operation into a specialised function: a wide page (thousands of fields) runs faster
// than through graphql-js's generic executor. Compiling costs far more than one execution (10-25 ms for a full
// page), so only a document that comes back is compiled: the project's own operations and a storefront's
// queries repeat (the parse cache hands back the same document object for the same text), while a stream of
// one-off documents never buys a compile. The operation limits (src/graphql/limits.ts) run first and bound
// what can reach the compiler (fields with fragments expanded).
//
// Compiled operations are kept in an LRU of at most MAX_COMPILED documents. A compiled operation is code and its
// source text, tens of kB even for a small query: kept for as long as its document stays in the parse cache (as
// @envelop/graphql-jit keeps them), a stream of distinct queries that each came back three times grew the heap
// without bound (a 10-minute soak: 262 to 470 MB). A document dropped from the LRU counts its runs afresh.
//
// A compiled operation answers as graphql-js does, but for the errors its resolvers throw: graphql-jit leaves
// out their locations and puts `data` before `errors`. Those are put right (locatedAsGraphqlJs), so the same
// request gets the same bytes whether or not its document has been compiled.
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
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';

/** Executions of a document before it is compiled. */
const COMPILE_FROM = 3;
/** Documents whose compiled operations are kept. */
export const MAX_COMPILED = 128;

/** A document's compiled operations by name ('' for the only one); null where graphql-jit could not compile it. */
type Compiled = Map<string, CompiledQuery | null>;

export function jitForRepeatedDocuments(
  maxCompiled = MAX_COMPILED,
): Plugin & { compiled(): { documents: number; compilations: number } } {
  let compilations = 0;
  const runs = new WeakMap<DocumentNode, number>();
  const compiled = new LRUCache<DocumentNode, Compiled>({
    max: maxCompiled,
    // Run COMPILE_FROM times again before it is compiled again: a document that lost its place is not recompiled
    // on its next run, so documents taking turns cannot spend every request compiling.
    dispose: (_compiled, document) => runs.delete(document),
  });

  const compiledFor = (run: ExecutionArgs): CompiledQuery | null => {
    let operations = compiled.get(run.document);
    if (!operations) {
      operations = new Map();
      compiled.set(run.document, operations);
    }
    const name = run.operationName ?? '';
    if (!operations.has(name)) {
      const made = compileQuery(run.schema, run.document, run.operationName ?? undefined);
      compilations++;
      operations.set(name, isCompiledQuery(made) ? made : null);
    }
    return operations.get(name) ?? null;
  };

  return {
    /** Documents kept compiled now, and compilations made so far. */
    compiled: () => ({ documents: compiled.size, compilations }),
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const count = (runs.get(args.document) ?? 0) + 1;
      runs.set(args.document, count);
      if (count < COMPILE_FROM) return;
      // graphql-jit words a variable that does not fit as "Expected type X." and drops the scalar's reason:
      // graphql-js coerces the variables first, so a bad one is answered alike before and after compiling.
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') return;
      const coerced = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
      if (coerced.errors) return setResultAndStopExecution({ errors: coerced.errors });
      const query = compiledFor(args);
      // Not compiled (graphql-jit refused the document): graphql-js runs it, as before it came back.
      if (!query) return;
      setExecuteFn(async (run: ExecutionArgs) =>
        locatedAsGraphqlJs(run, await query.query(run.rootValue, run.contextValue, run.variableValues)),
      );
    },
  };
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
