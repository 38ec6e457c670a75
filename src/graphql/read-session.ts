// The request's read session around its operation, whichever door (GraphQL or v2) ran it. Wraps the execute
// function, so that
// - the session ends once the execution itself has ended (or failed), not when a deadline answered the client
//   early, and its connection goes back to the pool right away;
// - an operation whose reads met two versions of the listing (an import committed between them: see
//   src/db/sql.ts) is made again, its reads in one read-only repeatable-read transaction, and only that answer is
//   given: the first one may mix two states of the listing;
// - an operation whose replica failed under it is made again on another database (src/db/replicas.ts): a
//   replica going away costs its requests nothing but time.
import type { Plugin } from 'graphql-yoga';
import type { Context } from './context.js';

export function readSessions(): Plugin<Context> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        const context = args.contextValue as Context;
        try {
          const result = await executeFn(args);
          const { moved, lost } = context.session;
          if (!moved && !lost) return result;
          await context.session.end();
          context.readAgain(moved ? 'transaction' : 'versioned');
          return await executeFn(args);
        } finally {
          await context.session.end();
        }
      });
    },
  };
}
