// A GraphQL request as yoga reads it, for the plain ones the Node edge answers itself (src/graphql/edge-operations.ts):
// a query sent as GET parameters or as a JSON body, answered as JSON. Each function says yes only where yoga
// would read the request the same way and answer it with its regular (JSON) result processor; anything else is
// null, and the request goes to yoga, which answers it (or refuses it) as it always has. test/graphql/edge-
// operations.test.ts holds the two to the same answers.

export type JsonMediaType = 'application/json' | 'application/graphql-response+json';

const REGULAR: readonly JsonMediaType[] = ['application/graphql-response+json', 'application/json'];
const STREAMING = ['text/event-stream', 'multipart/mixed'];

const matches = (processorType: string, requestType: string) => {
  const [pre, suf] = processorType.split('/');
  const [askedPre, askedSuf] = requestType.split('/');
  return (askedPre === '*' || askedPre === pre) && (askedSuf === '*' || askedSuf === suf);
};

/**
 * The media type yoga answers a query's result in, for this Accept, where its regular processor answers; null
 * where an event stream or multipart answer, or a 406, would. As yoga negotiates (its useResultProcessors): the
 * request's types in reverse order, utf-8 only, each tried against the event-stream, multipart and regular
 * processors' types in turn, the last match winning.
 */
export function regularMediaType(accept: string | undefined): JsonMediaType | null {
  const key = accept ?? '';
  const known = negotiated.get(key);
  if (known !== undefined) return known;
  const chosen = negotiate(accept);
  // Clients send few different Accept headers; past the bound (someone sending many), each is negotiated anew.
  if (negotiated.size < NEGOTIATED) negotiated.set(key, chosen);
  return chosen;
}

const NEGOTIATED = 64;
const negotiated = new Map<string, JsonMediaType | null>();

function negotiate(accept: string | undefined): JsonMediaType | null {
  const asked = (accept || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .filter(
      (type) => (type.split(';').find((param) => param.includes('charset=')) ?? 'charset=utf-8') === 'charset=utf-8',
    )
    .map((type) => type.split(';')[0] as string)
    .reverse();
  let chosen: string | null = null;
  for (const processorTypes of [[STREAMING[0] as string], [STREAMING[1] as string], REGULAR]) {
    for (const requestType of asked) {
      for (const type of processorTypes) if (matches(type, requestType)) chosen = type;
    }
  }
  return chosen === 'application/json' || chosen === 'application/graphql-response+json' ? chosen : null;
}

/** A plain query's parameters: no extensions (persisted queries are the app's to answer). */
export interface EdgeParams {
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
}

const PARAMETERS = new Set(['query', 'variables', 'operationName', 'extensions']);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parameters where they are those of a plain query, as yoga checks them; null for anything else. */
function plain(params: Record<string, unknown>): EdgeParams | null {
  for (const name in params) if (params[name] != null && !PARAMETERS.has(name)) return null;
  const { query, variables, operationName, extensions } = params;
  if (typeof query !== 'string' || query === '' || extensions != null) return null;
  if (variables != null && !isObject(variables)) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  return {
    query,
    variables: variables ?? undefined,
    operationName: (operationName as string | null | undefined) ?? undefined,
  };
}

const json = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A GET's parameters (its query string, without `?`), as yoga's GET parser reads them. */
export function getParams(search: string): EdgeParams | null {
  const params = new URLSearchParams(search);
  const variablesText = params.get('variables') || undefined;
  const variables = variablesText === undefined ? undefined : json(variablesText);
  if (variablesText !== undefined && variables === undefined) return null;
  return plain({
    query: params.get('query') || undefined,
    operationName: params.get('operationName') || undefined,
    variables,
    extensions: params.get('extensions') || undefined,
  });
}

/** A POST's JSON body's parameters. */
export function postParams(body: string): EdgeParams | null {
  const params = json(body);
  return isObject(params) ? plain(params) : null;
}
