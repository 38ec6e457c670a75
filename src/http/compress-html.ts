// GraphiQL's page inlines all its assets (~9 MB of HTML); gzipped it is a fraction of that. The page never
// changes, so it is compressed once and the bytes reused. Other responses are left as they are: the v2 path
// must stay exactly what the legacy service sent, and JSON pages are small.
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

export function compressHtmlPages(): Plugin {
  let cached: { html: string; gzipped: Uint8Array } | undefined;
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      if (!/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return;
      const html = await response.text();
      if (cached?.html !== html) cached = { html, gzipped: gzipSync(html) };
      const headers = new fetchAPI.Headers(response.headers);
      headers.set('content-encoding', 'gzip');
      headers.set('content-length', String(cached.gzipped.byteLength));
      headers.append('vary', 'Accept-Encoding');
      setResponse(new fetchAPI.Response(cached.gzipped as unknown as BodyInit, { status: response.status, headers }));
    },
  };
}
