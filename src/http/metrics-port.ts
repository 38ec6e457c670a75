// Where /metrics is served (METRICS_PORT): on a port of its own, the default in production, where a scrape reaches
// it and the public does not, with no proxy rule to hide it; beside /graphql on the public port (`public`, the
// default in development, where a clone's one port is friendlier and there is nothing private to hide); or nowhere.
// The public port then answers /metrics as any path of none of ours: Django's 404 page.
import { createServer, type Server } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Registry } from 'prom-client';
import { NOT_SHARED } from './cache-headers.js';
import { DJANGO_PAGE_HEADERS, NOT_FOUND_PAGE } from './django-pages.js';
import { listeningBase } from './public-base.js';
import { METRICS_PATH } from './routes.js';

export type MetricsPort = number | 'public' | 'off';

/**
 * The metrics plugin as the public port runs it: as it is with `public`; else its other hooks (the GraphQL
 * operations' timings) stay, and /metrics gets the 404 page.
 */
export function onThePublicPort(plugin: Plugin, where: MetricsPort): Plugin {
  if (where === 'public') return plugin;
  return {
    ...plugin,
    onRequest({ url, request, fetchAPI, endResponse }) {
      if (url.pathname !== METRICS_PATH) return;
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : NOT_FOUND_PAGE, {
          status: 404,
          headers: { ...DJANGO_PAGE_HEADERS, 'cache-control': NOT_SHARED },
        }),
      );
    },
  };
}

export interface MetricsListener {
  /** Where a client on this machine scrapes, e.g. http://127.0.0.1:9464/metrics. */
  url: string;
  close(): Promise<void>;
}

/** Serves `registry` at /metrics on `host`:`port` (0 picks a free port); every other path is 404. */
export async function listenForMetrics(registry: Registry, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('GET or HEAD\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': NOT_SHARED });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('the metrics could not be collected\n'),
    );
  });
  // A scrape sends its request at once; a connection that does not is not a scraper.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `${listeningBase(host, bound)}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
