// GET /healthz: {"status":"ok"} once the database answers; 503 {"status":"unavailable"} when it does not.
import type { Plugin } from 'graphql-yoga';

export function healthRoute(ping: () => Promise<void>): Plugin {
  return {
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== '/healthz') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
        return;
      }
      let healthy = true;
      try {
        await ping();
      } catch {
        healthy = false;
      }
      const body = JSON.stringify({ status: healthy ? 'ok' : 'unavailable' });
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : body, {
          status: healthy ? 200 : 503,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
        }),
      );
    },
  };
}
