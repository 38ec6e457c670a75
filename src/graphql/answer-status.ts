// The HTTP status of an executed operation's answer, as GraphQL over HTTP says it: an answer whose `data` holds
// something is a 2xx, whatever its field errors would say (a client reads the fields it got and the errors beside
// them; Apollo Client and urql read neither from a 4xx). A field error's own status (400 BAD_USER_INPUT, 429
// TOO_BUSY, 503, ...) is the answer's only when no root field was answered: then `data` is null, as if each root
// field were non-null (`{ package(id: "123") { id } }` is a 400 refusal, not a 200 with `package: null`).
// Request errors (no `data` at all) keep their 4xx: src/graphql/limits.ts (withClientErrors). Yoga (its
// onResultProcess hooks) and the Node edge (src/graphql/edge-operations.ts) call the same functions.
import type { ExecutionResult, GraphQLError } from 'graphql';
import { withExtensions } from './errors.js';

type Answer = ExecutionResult & { data?: Record<string, unknown> | null };

/** The answer holds nothing: no `data`, or each of its root fields is null by an error. */
export function answeredNothing(result: Answer): boolean {
  const { data, errors } = result;
  if (data == null) return true;
  const keys = Object.keys(data);
  if (keys.length === 0 || !errors?.length) return false;
  const failed = new Set(errors.map((error) => error.path?.[0]));
  return keys.every((key) => data[key] === null && failed.has(key));
}

/** The error without an HTTP status of its own (its headers, a Retry-After, stay). */
function withoutStatus(error: GraphQLError): GraphQLError {
  const http = error.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined;
  if (http?.status === undefined) return error;
  const { http: _http, ...extensions } = error.extensions;
  return withExtensions(error, { ...extensions, ...(http.headers && { http: { headers: http.headers } }) });
}

/**
 * An executed operation's answer (one that has `data`) with its status settled: 2xx with the fields it has and
 * their errors, or, when no root field was answered, `data` null and the errors' own status.
 */
export function withAnswerStatus<R extends Answer>(result: R): R {
  if (!result.errors?.length || result.data == null) return result;
  if (answeredNothing(result)) return { ...result, data: null };
  if (!result.errors.some((error) => (error.extensions?.http as { status?: number })?.status !== undefined)) {
    return result;
  }
  return { ...result, errors: result.errors.map(withoutStatus) };
}
