// The request's read session around its operation, whichever door (GraphQL or v2) ran it. Wraps the execute
// function, so that
// - the session ends once the execution itself has ended (or failed), not when a deadline answered the client
//   early, and its connection goes back to the pool right away;
// - an operation whose reads met two versions of the listing (an import committed between them: see
//   src/db/sql.ts) is made again, its reads in one read-only repeatable-read transaction, and only that answer is
//   given: the first one may mix two states of the listing;
// - an operation whose database failed under it (its connection lost, or a replica's conflict with recovery: see
//   src/db/faults.ts) is made again on another database, each database at most once (src/db/replicas.ts): a
//   replica going away costs its requests nothing but time. A busy database or a spent deadline fails the
//   request only: made again elsewhere, it would carry the load to the next database.
// An operation made again says so on its span (`graphql.execute`, when tracing is on).
import { trace } from '@opentelemetry/api';
import type { Plugin } from 'graphql-yoga';
import { tracingOn } from '../tracing.js';
import type { Context } from './context.js';

/** Runs of one operation at most, whatever the databases say (each failed database is left out after one). */
const MAX_RUNS = 8;

export function readSessions(): Plugin<Context> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        const context = args.contextValue as Context;
        try {
          let result = await executeFn(args);
          for (let runs = 1; runs < MAX_RUNS; runs++) {
            const { moved, lost } = context.session;
            if (!moved && !lost) return result;
            const from = context.database;
            await context.session.end();
            if (!context.readAgain({ moved, lost })) return result;
            markRun(runs + 1, lost ? 'database failed' : 'listing moved', from, context.database);
            result = await executeFn(args);
          }
          return result;
        } finally {
          await context.session.end();
        }
      });
    },
  };
}

/** The operation's span (the active one) counts its runs, with an event for each run made again and why. */
function markRun(run: number, reason: string, from: string | undefined, to: string | undefined): void {
  const span = tracingOn() ? trace.getActiveSpan() : undefined;
  if (!span) return;
  span.setAttribute('graphql.operation.runs', run);
  span.addEvent('operation run again', {
    reason,
    ...(from && { 'db.server.role.failed': from }),
    ...(to && { 'db.server.role': to }),
  });
}
