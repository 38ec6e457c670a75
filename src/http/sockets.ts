// What one client may hold of the listener itself: its connections. Node bounds what a connection sends (a request
// head of 16 KB at most, within the server's headersTimeout once begun), but neither how many connections one
// address holds nor how long one that never sends a byte stays open (for ever, in Node 20). So:
// - a connection must bring its first request within the server's headersTimeout, or it is closed;
// - one client address holds at most MAX_CONNECTIONS_PER_ADDRESS connections at once: a connection past that is
//   answered 429 (at its first request, by the edge, src/http/edge.ts) and closed, and is closed at once if it
//   sends nothing within OVER_MS. Behind a trusted proxy (TRUST_PROXY) every connection is the proxy's: there the
//   bound is the proxy's to set, and none is applied here.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Refusal } from './refusals.js';

/** How long a connection past the bound may take to send its request before it is closed unanswered. */
const OVER_MS = 1000;
/** What a client refused for holding too many connections is told to wait. */
const RETRY_AFTER_SECONDS = 1;

export interface ConnectionBoundOptions {
  /** Connections per client address; 0: no bound. */
  perAddress: number;
  /** A proxy in front: every connection is its own, so none is bounded per address. */
  trustProxy: boolean;
}

export interface ConnectionBound {
  /** Counts the server's connections from now on. */
  watch(server: Server): void;
  /** The refusal of a request that came on a connection past its address's bound, or null (for the edge). */
  refusal(request: IncomingMessage): Refusal | null;
}

export function boundConnections({ perAddress, trustProxy }: ConnectionBoundOptions): ConnectionBound {
  const bounded = perAddress > 0 && !trustProxy;
  const open = new Map<string, number>();
  const over = new WeakSet<Socket>();
  /** The deadline of each connection that has not yet brought a request. */
  const waiting = new WeakMap<Socket, NodeJS.Timeout>();

  function connected(server: Server, socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const held = open.get(address) ?? 0;
    const past = bounded && held >= perAddress;
    const deadline = setTimeout(() => socket.destroy(), past ? OVER_MS : server.headersTimeout);
    deadline.unref();
    waiting.set(socket, deadline);
    socket.once('close', () => clearTimeout(deadline));
    if (past) {
      over.add(socket);
      return;
    }
    open.set(address, held + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  }

  return {
    watch(server) {
      server.on('connection', (socket: Socket) => connected(server, socket));
    },
    refusal(request) {
      const { socket } = request;
      clearTimeout(waiting.get(socket));
      waiting.delete(socket);
      if (!over.has(socket)) return null;
      return {
        status: 429,
        code: 'RATE_LIMITED',
        message: `Too many connections from this address: the limit is ${perAddress} at once (MAX_CONNECTIONS_PER_ADDRESS). Reuse one, or retry in ${RETRY_AFTER_SECONDS} s.`,
        v2Detail: `Request was throttled. Expected available in ${RETRY_AFTER_SECONDS} second.`,
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      };
    },
  };
}
