// Ends the request's read session once its operation has finished (or failed), so its connection goes back to
// the pool right away, whichever door (GraphQL or v2) ran it. Wraps the execute function, so the session ends
// even when execution throws, and after the last resolver, not when a deadline answered the client early.
import type { Plugin } from 'graphql-yoga';
import type { Context } from './context.js';

export function endReadSessions(): Plugin<Context> {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        try {
          return await executeFn(args);
        } finally {
          await (args.contextValue as Context).session.end();
        }
      });
    },
  };
}
