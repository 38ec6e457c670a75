// Every operation gets a deadline: past it the client is answered with a TIMEOUT error (HTTP 504) at once,
// whatever the operation is still waiting for. The database side stops too: each statement is bounded by the
// statement timeout, and no new statement starts once the deadline has passed (see `expired` in the context).
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export function timeoutError(ms: number) {
  return createGraphQLError(`The operation took longer than ${ms / 1000} s and was stopped.`, {
    extensions: { code: 'TIMEOUT', http: { status: 504 } },
  });
}

/** Place after any plugin that replaces the execute function (graphql-jit), so it wraps the final one. */
export function executionDeadline(ms: number): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<{ errors: ReturnType<typeof timeoutError>[] }>((resolve) => {
          timer = setTimeout(() => resolve({ errors: [timeoutError(ms)] }), ms);
        });
        try {
          return await Promise.race([executeFn(args), expired]);
        } finally {
          clearTimeout(timer);
        }
      });
    },
  };
}
