// A graceful stop for a node:http server. On `drain()` it stops accepting connections, closes the idle keep-alive
// ones, marks every answer still to be sent `Connection: close` (so clients open a new connection elsewhere
// rather than reuse this one), lets the requests in flight finish, and reports when the last connection is gone
// or the time is up (then the remaining connections are cut).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface Drainer {
  /** Requests being handled now. */
  inFlight(): number;
  stopping(): boolean;
  /** Resolves with `drained` once every connection has closed, or `forced` after `timeoutMs`. */
  drain(timeoutMs: number): Promise<'drained' | 'forced'>;
}

export function drainable(server: Server): Drainer {
  const responses = new Set<ServerResponse>();
  let stopping = false;

  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    responses.add(response);
    if (stopping) response.shouldKeepAlive = false;
    response.once('close', () => {
      responses.delete(response);
      if (stopping) server.closeIdleConnections();
    });
  });

  return {
    inFlight: () => responses.size,
    stopping: () => stopping,
    drain(timeoutMs) {
      stopping = true;
      const closed = new Promise<'drained'>((resolve) => server.close(() => resolve('drained')));
      for (const response of responses) if (!response.headersSent) response.shouldKeepAlive = false;
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'forced'>((resolve) => {
        timer = setTimeout(() => {
          server.closeAllConnections();
          resolve('forced');
        }, timeoutMs);
      });
      return Promise.race([closed, late]).finally(() => clearTimeout(timer));
    },
  };
}
