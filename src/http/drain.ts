// A graceful stop for a node:http server. On `drain()` it stops accepting connections, marks every answer still to
// be sent `Connection: close` (so clients open a new connection elsewhere rather than reuse this one), lets the
// requests in flight finish, closes the idle keep-alive connections after a short grace, and reports when the
// last connection is gone or the time is up (then the remaining connections are cut).
//
// The grace is for requests a client has already sent on a kept-alive connection that the server has not read
// yet (its event loop was busy, as the embedded database keeps it): "idle" to node:http, so closing it at once
// reset them. During the grace they are read and answered with `Connection: close`.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';

const IDLE_GRACE_MS = 1000;

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
  let graceOver = false;

  // One listener for every answer's close (it fires once): no closure made per request.
  function closed(this: ServerResponse) {
    responses.delete(this);
    if (graceOver) server.closeIdleConnections();
  }
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    responses.add(response);
    if (stopping) response.shouldKeepAlive = false;
    response.on('close', closed);
  });

  return {
    inFlight: () => responses.size,
    stopping: () => stopping,
    drain(timeoutMs) {
      stopping = true;
      // net's close stops accepting; http's (since Node 19) would also close the idle connections at once.
      const closed = new Promise<'drained'>((resolve) =>
        NetServer.prototype.close.call(server, () => resolve('drained')),
      );
      for (const response of responses) if (!response.headersSent) response.shouldKeepAlive = false;
      // When the grace ends, close after the event loop's next poll for input (setImmediate runs after it): a loop
      // kept busy past the grace then reads the requests already sent before it calls their connections idle.
      const grace = setTimeout(
        () =>
          setImmediate(() => {
            graceOver = true;
            server.closeIdleConnections();
          }),
        Math.min(IDLE_GRACE_MS, timeoutMs),
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'forced'>((resolve) => {
        timer = setTimeout(() => {
          server.closeAllConnections();
          resolve('forced');
        }, timeoutMs);
      });
      return Promise.race([closed, late]).finally(() => {
        clearTimeout(timer);
        clearTimeout(grace);
      });
    },
  };
}
