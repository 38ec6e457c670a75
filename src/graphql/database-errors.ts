// Database trouble, as GraphQL clients see it: SERVICE_UNAVAILABLE ("try again shortly"), and HTTP 503 with
// Retry-After when the answer holds no data, in one error rather than one per field that could not be loaded.
// The store speaks of DatabaseUnavailableError; this is where that becomes GraphQL. A busy database is logged as
// one warning per 10 s, not one line per request; a lost one is the outage src/http/health.ts logs, once when it
// begins and once when it ends, from the check /healthz makes.
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { DatabaseUnavailableError, faultReason } from '../db/faults.js';
import { DeadlinePassedError, type ReadSession } from '../db/sql.js';
import { answeredNothing } from './answer-status.js';

export const RETRY_AFTER_SECONDS = 5;
const UNAVAILABLE = 'SERVICE_UNAVAILABLE';

export function unavailableError() {
  return createGraphQLError('The database is not available right now; try again in a few seconds.', {
    extensions: { code: UNAVAILABLE },
  });
}

/** The session with its database faults turned into GraphQL errors that are not masked. */
export function graphqlSession(session: ReadSession, logger: Logger): ReadSession {
  async function guarded<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof DatabaseUnavailableError) {
        warnOutage(logger, error);
        throw unavailableError();
      }
      if (error instanceof DeadlinePassedError)
        throw createGraphQLError(error.message, { extensions: { code: 'TIMEOUT' } });
      throw error;
    }
  }
  return {
    query: (statement, params) => guarded(() => session.query(statement, params)),
    withListing: (statement, params) => guarded(() => session.withListing(statement, params)),
    knownListing: () => session.knownListing(),
    readVersion: () => session.readVersion(),
    get moved() {
      return session.moved;
    },
    get lost() {
      return session.lost;
    },
    textOverBytes: session.textOverBytes,
    end: () => session.end(),
  };
}

let lastWarned = 0;
function warnOutage(logger: Logger, error: DatabaseUnavailableError): void {
  if (error.kind === 'lost' || Date.now() - lastWarned < 10_000) return;
  lastWarned = Date.now();
  const reason = faultReason(error);
  // A busy database fails the requests that meet it; a replica's conflict costs a re-run elsewhere.
  const what = {
    busy: 'database busy: the requests that meet it are answered 503',
    conflict: 'a replica cancelled a read for a change it replays: the operation runs again elsewhere',
  }[error.kind];
  logger.warn({ reason }, what);
}

type Result = Parameters<NonNullable<Plugin['onResultProcess']>>[0]['result'];

/**
 * The result with its SERVICE_UNAVAILABLE errors made one, with HTTP 503 and Retry-After when no root field was
 * answered (`data` null: an answer with data is a 2xx, src/graphql/answer-status.ts); any other result as it is.
 */
export function withOneUnavailable(result: Result): Result {
  if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return result;
  const unavailable = result.errors.filter((error) => error.extensions?.code === UNAVAILABLE);
  if (unavailable.length === 0) return result;
  const others = result.errors.filter((error) => error.extensions?.code !== UNAVAILABLE);
  const noData = answeredNothing(result);
  const one = createGraphQLError(unavailableError().message, {
    extensions: {
      code: UNAVAILABLE,
      ...(noData && { http: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } }),
    },
  });
  return { ...result, errors: [one, ...others] };
}

/** Database faults answered as one SERVICE_UNAVAILABLE error (see withOneUnavailable). */
export function answerUnavailable(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      const answered = withOneUnavailable(result);
      if (answered !== result) setResult(answered);
    },
  };
}
