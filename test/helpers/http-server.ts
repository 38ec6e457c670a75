// An app served over real HTTP in this process, wired as src/server.ts wires it: the Node edge in front (the body
// bound and the connection bound of the settings), the v2 links on the listening address (or the forwarded one
// behind a trusted proxy), the request's span around it all while tracing is on, a free port on loopback.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AppSettings, createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { type BeforeTheApp, guardEdge } from '../../src/http/edge.js';
import type { EventStreams } from '../../src/http/event-streams.js';
import { listeningBase, type PublicBase, publicBaseFor } from '../../src/http/public-base.js';
import { boundConnections } from '../../src/http/sockets.js';
import { traceRequests } from '../../src/http/tracing.js';
import type { Logger } from '../../src/logger.js';
import { tracingOn } from '../../src/tracing.js';

export interface ServedApp {
  url: string;
  /** Requests answered at the Node edge from a kept answer (src/cache/edge-hits.ts), before the app. */
  edgeAnswered(): number;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Kept answers sent at the Node edge, as the server does (default); false: every request goes to the app. */
  edgeHits?: boolean;
  logger?: Logger;
  /**
   * The listening address the v2 links are built on (as src/server.ts makes it from HOST and PORT); by default this
   * server's own. Two servers compared byte for byte are given the same one.
   */
  listening?: string;
  /** Connections one client address may hold open at once (MAX_CONNECTIONS_PER_ADDRESS); by default no bound. */
  maxConnectionsPerAddress?: number;
}

export async function serveApp(
  db: Database,
  settings: Partial<AppSettings>,
  publicUrl?: string,
  streams?: EventStreams,
  { edgeHits = true, logger, listening, maxConnectionsPerAddress = 0 }: ServeOptions = {},
): Promise<ServedApp> {
  let base: PublicBase = () => '';
  const app = createApp({
    db,
    settings,
    publicBase: (request) => base(request),
    ...(streams && { streams }),
    ...(logger && { logger }),
  });
  const trustProxy = settings.trustProxy ?? false;
  let answered = 0;
  const hits = app.atTheEdge;
  const beforeTheApp: BeforeTheApp | undefined =
    edgeHits && hits
      ? (...args) => {
          const early = hits(...args);
          if (!early) return false;
          return early.then((sent) => {
            if (sent) answered += 1;
            return sent;
          });
        }
      : undefined;
  const maxBodyBytes = settings.maxBodyBytes ?? loadConfig({}).maxBodyBytes;
  const connections = boundConnections({ perAddress: maxConnectionsPerAddress, trustProxy });
  const edge = guardEdge(app, { maxBodyBytes, trustProxy, beforeTheApp, refuseConnection: connections.refusal });
  const server = createServer(tracingOn() ? traceRequests(edge) : edge);
  connections.watch(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = publicBaseFor({ publicUrl, trustProxy }, listening ?? listeningBase('127.0.0.1', port));
  return {
    url: `http://127.0.0.1:${port}`,
    edgeAnswered: () => answered,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.dispose();
    },
  };
}

export { type Exchange, send } from './exchange.js';
