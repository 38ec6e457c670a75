// GraphiQL served entirely from this server. Yoga's default page loads its code from a CDN (unpkg), which users
// behind firewalls cannot reach; `@graphql-yoga/render-graphiql` inlines the same GraphiQL (script, styles,
// editor workers, favicon) into the one HTML response, so the page fetches nothing but /graphql itself.
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { chooseEncoding, compress, type Encoding } from '../http/compression.js';
import { asksForGraphiql, GRAPHQL_PATH } from '../http/routes.js';

export const graphiql: GraphiQLOptions = {
  title: 'Package listing GraphQL',
  defaultQuery: `# The listing in a fixed order: same seed, same order.
# Next page: the same seed with offset: 5.
query FirstPage {
  packages(limit: 5, seed: 42) {
    count
    seed
    results {
      id
      title
      price
      photographer {
        name
      }
      images {
        thumbnail
      }
    }
  }
}
`,
};

/**
 * The page, served by this plugin rather than yoga's: its ~9 MB are rendered once (the bundled assets are a
 * module loaded on the first page load, not with the app) and kept as bytes, and each encoding is compressed
 * once, so a page load costs neither a render nor a 9 MB string encoded anew. GET /graphql from a browser (an
 * Accept with text/html), as yoga decides it.
 */
export function graphiqlPage(): Plugin {
  let page: Promise<Buffer> | undefined;
  const encoded = new Map<Encoding, Promise<Uint8Array>>();
  const bytes = () => {
    page ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) =>
      Buffer.from(renderGraphiQL(graphiql)),
    );
    return page;
  };
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== GRAPHQL_PATH || !asksForGraphiql(request.method, request.headers.get('accept'))) return;
      const html = await bytes();
      const encoding = chooseEncoding(request.headers.get('accept-encoding'));
      let body: Uint8Array = html;
      if (encoding) {
        let compressed = encoded.get(encoding);
        if (!compressed) {
          compressed = compress(html, encoding);
          encoded.set(encoding, compressed);
        }
        body = await compressed;
      }
      endResponse(
        new fetchAPI.Response(body as BodyInit, {
          headers: {
            'content-type': 'text/html',
            vary: 'Accept-Encoding',
            'content-length': String(body.byteLength),
            ...(encoding ? { 'content-encoding': encoding } : {}),
          },
        }),
      );
    },
  };
}
