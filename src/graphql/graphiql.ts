// GraphiQL served entirely from this server. Yoga's default page loads its code from a CDN (unpkg), which users
// behind firewalls cannot reach; `@graphql-yoga/render-graphiql` inlines the same GraphiQL (script, styles,
// editor workers, favicon) into the one HTML response, so the page fetches nothing but /graphql itself.
import type { GraphiQLOptions } from 'graphql-yoga';

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

// The bundled assets are a ~9 MB module: load it on the first GraphiQL request rather than with the app, and
// render the page once per set of options (they are fixed, so in practice once).
let rendered: { key: string; html: string } | undefined;

export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const key = JSON.stringify(options);
  if (rendered?.key !== key) {
    const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
    rendered = { key, html: render(options) };
  }
  return rendered.html;
}
