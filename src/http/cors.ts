// CORS for browser frontends on every route but the v2 path, where OPTIONS must answer as the legacy
// Django REST Framework view did (its metadata), not as a CORS preflight.
import { useCORS } from '@whatwg-node/server';
import type { Plugin } from 'graphql-yoga';

export function corsExcept(paths: string[]): Plugin {
  const cors = useCORS({});
  return {
    onRequest(payload) {
      if (paths.includes(payload.url.pathname)) return;
      return cors.onRequest?.(payload as never);
    },
    onResponse(payload) {
      if (paths.includes(new URL(payload.request.url).pathname)) return;
      return cors.onResponse?.(payload as never);
    },
  };
}
