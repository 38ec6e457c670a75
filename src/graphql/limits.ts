// Refuses an abusive operation before it runs: before it is executed, compiled (graphql-jit) or cached, and with
// a 400 that names the limit, the limit's value and what the operation measured.
//
// - tokens: graphql-js's own `maxTokens`, so a huge document is never fully parsed;
// - aliases and directives: graphql-armor's validation rules (fragments counted once per spread, memoised);
// - depth, fields and cost: Pothos' complexity plugin, which walks the selection with each fragment's result
//   memoised, so a document whose fragments spread each other twice per level (2^30 fields once expanded) is
//   priced in time linear in its size. Fields are counted with every fragment expanded; cost multiplies each
//   field by the list sizes it sits in: the `limit`/`first` argument where there is one, 10 for nested lists
//   (images, tags, ...), so N aliases of a page, or a page of every field, cost what they would cost to serve.
// The per-operation part (depth, fields, cost) runs at execution, since the list sizes may come from variables;
// yoga caches validation per document, which would keep a verdict made for other variables.
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { type DocumentNode, GraphQLError, getOperationAST, Kind, parse, type ValidationRule } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { OperationLimits } from '../config.js';
import { withAnswerStatus } from './answer-status.js';
import { withExtensions } from './errors.js';

/** The operation limits, and the size of a document registered by automatic persisted queries (apq.ts). */
export type LimitName = keyof OperationLimits | 'documentBytes';

const MEASURE: Record<LimitName, (actual: number | string) => string> = {
  tokens: (actual) => `The document has ${actual} tokens`,
  documentBytes: (actual) => `The document to register as a persisted query has ${actual} bytes (UTF-8)`,
  depth: (actual) => `The query is ${actual} fields deep`,
  aliases: (actual) => `The query uses ${actual} aliases`,
  directives: (actual) => `The query uses ${actual} directives`,
  fields: (actual) => `The query selects ${actual} fields once its fragments are expanded`,
  cost: (actual) =>
    `The query costs ${actual} (each field counted once per item of the lists it is in, at the sizes asked for)`,
};

/** A refusal: HTTP 400, `extensions.code` QUERY_LIMIT_EXCEEDED, and which limit with both values. */
export function limitExceeded(limit: LimitName, max: number, actual: number | string): GraphQLError {
  return createGraphQLError(`${MEASURE[limit](actual)}; the limit is ${max}.`, {
    extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit, max, actual, http: { status: 400 } },
  });
}

/**
 * A request error (the document did not parse or validate, or the variables did not fit) is the client's
 * mistake: HTTP 400 with a code. Yoga marks parse and validation errors as the spec's and answers them 200 to
 * clients that accept only application/json (the legacy watershed); variable errors carry no code at all.
 * Unexpected errors keep their masked 500.
 */
function asClientError<E>(error: E): E {
  // Duck-typed: graphql ships CommonJS and ESM builds, and errors may come from either.
  if (!(error instanceof Error) || !('extensions' in error)) return error;
  const graphqlError = error as unknown as GraphQLError;
  const extensions = graphqlError.extensions ?? {};
  const http = extensions.http as { spec?: boolean; status?: number } | undefined;
  const settled = http?.status !== undefined && !http.spec;
  if (extensions.unexpected || (settled && extensions.code)) return error;
  return withExtensions(graphqlError, {
    ...extensions,
    code: extensions.code ?? 'BAD_USER_INPUT',
    http: { status: settled ? http?.status : 400 },
  }) as E;
}

type Result = Parameters<NonNullable<Plugin['onResultProcess']>>[0]['result'];

/**
 * The errors' HTTP status. A document that does not parse or validate is the client's mistake: 400 whatever the
 * Accept header (yoga answers such errors with 200 to clients that accept only application/json, the legacy
 * watershed); that is a request error, an answer without `data`. An executed operation's answer (with `data`) is a
 * 2xx when it holds anything, its field errors' status otherwise (withAnswerStatus); any other result as it is.
 */
export function withClientErrors(result: Result): Result {
  if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return result;
  if ('data' in result) return withAnswerStatus(result);
  return { ...result, errors: result.errors.map(asClientError) };
}

/** armor's rules report `... limit of N exceeded, found M.`; their count is taken from there. */
function armorRule(limit: 'aliases' | 'directives', max: number): ValidationRule {
  const make = limit === 'aliases' ? maxAliasesRule : maxDirectivesRule;
  return make({
    n: max,
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [
      (context, error) => {
        const found = /found (\d+)/.exec(error.message)?.[1];
        context?.reportError(limitExceeded(limit, max, found ? Number(found) : `more than ${max}`));
      },
    ],
    // armor's option types name its own context type; the rule is an ordinary graphql-js ValidationRule.
  } as Parameters<typeof make>[0]) as ValidationRule;
}

/**
 * Mutations: this API reads only (its one subscription tells of changes). graphql-js would fail them at
 * execution, as a 500.
 */
const queriesOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation)) return;
    context.reportError(
      new GraphQLError(`This API is read-only: it has no ${node.operation} operations. Send a query.`, {
        nodes: node,
        extensions: { code: 'OPERATION_NOT_SUPPORTED' },
      }),
    );
  },
});

/** The selected operation with the document's fragments: Pothos prices the first operation it finds. */
function selectedOperation(document: DocumentNode, operationName: string | null | undefined): DocumentNode | null {
  const operation = getOperationAST(document, operationName);
  if (!operation) return null;
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] };
}

/** Depth, expanded fields and cost of the operation about to run; null when it cannot be priced (bad input). */
export function measureOperation(
  args: { schema: Parameters<typeof complexityFromQuery>[1]['schema']; document: DocumentNode },
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): { depth: number; fields: number; cost: number } | null {
  const document = selectedOperation(args.document, operationName);
  if (!document) return null;
  try {
    const { depth, breadth, complexity } = complexityFromQuery(document, {
      schema: args.schema,
      variables: variables ?? {},
    });
    return { depth, fields: breadth, cost: complexity };
  } catch {
    return null; // bad variables and the like: execution reports them as it would anyway
  }
}

/** The first of depth, fields and cost the operation goes over, as its refusal; null when within them all. */
function overLimit(
  args: Parameters<typeof measureOperation>[0] & {
    operationName?: string | null | undefined;
    variableValues?: Record<string, unknown> | null | undefined;
  },
  limits: OperationLimits,
): GraphQLError | null {
  const measured = measureOperation(args, args.operationName, args.variableValues);
  if (!measured) return null;
  for (const limit of ['depth', 'fields', 'cost'] as const) {
    if (measured[limit] > limits[limit]) return limitExceeded(limit, limits[limit], measured[limit]);
  }
  return null;
}

/**
 * Verdicts kept per document, by operation and variables (up to a kilobyte of them): a document that comes back
 * with the same variables is priced once.
 */
const VERDICTS_PER_DOCUMENT = 32;
const REMEMBERED_VARIABLES = 1024;

/** overLimit, remembered per document (the parse cache hands back the same document for the same text). */
function rememberedVerdicts(limits: OperationLimits): typeof overLimit {
  const verdicts = new WeakMap<DocumentNode, Map<string, GraphQLError | null>>();
  return (args) => {
    let known = verdicts.get(args.document);
    if (!known) {
      known = new Map();
      verdicts.set(args.document, known);
    }
    const key = `${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? null)}`;
    const verdict = known.get(key);
    if (verdict !== undefined) return verdict;
    const made = overLimit(args, limits);
    if (known.size < VERDICTS_PER_DOCUMENT && key.length <= REMEMBERED_VARIABLES) known.set(key, made);
    return made;
  };
}

export function operationLimits(limits: OperationLimits): Plugin {
  const rules = [queriesOnly, armorRule('aliases', limits.aliases), armorRule('directives', limits.directives)];
  const verdictOf = rememberedVerdicts(limits);
  return {
    onParse({ setParseFn }) {
      setParseFn((source, options) => {
        try {
          return parse(source, { ...options, maxTokens: limits.tokens });
        } catch (error) {
          if (error instanceof GraphQLError && /more tha[nt] \d+ tokens/.test(error.message)) {
            throw limitExceeded('tokens', limits.tokens, `more than ${limits.tokens}`);
          }
          throw error;
        }
      });
    },
    onValidate({ addValidationRule }) {
      for (const rule of rules) addValidationRule(rule);
    },
    onResultProcess({ result, setResult }) {
      const answered = withClientErrors(result);
      if (answered !== result) setResult(answered);
    },
    onExecute({ args, setResultAndStopExecution }) {
      const over = verdictOf(args, limits);
      if (over) setResultAndStopExecution({ errors: [over] });
    },
    // A subscription is priced as a query is, before it starts.
    onSubscribe({ args, setResultAndStopExecution }) {
      const over = verdictOf(args, limits);
      if (over) setResultAndStopExecution({ errors: [over] });
    },
  };
}

/**
 * The price of a list field (Pothos complexity option): each field below it counts `items` times, the most the
 * listing holds in practice. Lists sized by an argument (`limit`, `first`) are priced by that argument instead.
 */
export const upTo = (items: number) => ({ field: 1, multiplier: items });
