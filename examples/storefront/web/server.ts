// `npm run storefront`: the web storefront's own origin, a node:http server for a page of plain TypeScript modules
// that calls the gateway cross-origin, as a storefront on its own domain would (docs/storefront.md).
//   STOREFRONT_PORT (5173; 0: any free port), STOREFRONT_HOST (127.0.0.1), GATEWAY_URL (http://127.0.0.1:4000)
// At start esbuild bundles app/main.ts (and the CSS and images it imports) into one script, one stylesheet and the
// images, named by their content hash, so browsers keep them for good; the HTML is revalidated (ETag) on every visit.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { CDN as DEMO_IMAGE_ORIGIN } from '../../../src/demo/catalogue-offers.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const IMMUTABLE = 'public, max-age=31536000, immutable';
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

interface Asset {
  type: string;
  cacheControl: string;
  etag: string;
  /** The bytes, and compressed once at start for the browsers that take them. */
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

function asset(type: string, bytes: Buffer | string, cacheControl: string): Asset {
  const identity = Buffer.from(bytes);
  const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`;
  return { type, cacheControl, etag, identity, br: brotliCompressSync(identity), gzip: gzipSync(identity) };
}

/** The browser's script, stylesheet and images (and the script's source map), by the URL path they are served at. */
async function bundle(): Promise<Map<string, Asset>> {
  const result = await build({
    entryPoints: [`${HERE}app/main.ts`],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    sourcemap: 'linked',
    write: false,
    outdir: '/assets',
    entryNames: '[name].[hash]',
    // An image a module imports (the placeholder of a package without one) is an asset named by its hash too.
    loader: { '.svg': 'file' },
    assetNames: '[name].[hash]',
    publicPath: '/assets',
    logLevel: 'silent',
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const type = TYPES[extname(file.path)] ?? 'application/octet-stream';
    assets.set(`/assets/${basename(file.path)}`, asset(type, Buffer.from(file.contents), IMMUTABLE));
  }
  return assets;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The one HTML page every route of the storefront starts from; the script draws the route's view into it. */
function shell(gatewayUrl: string, assets: Map<string, Asset>): string {
  const find = (ending: string) => [...assets.keys()].find((path) => path.endsWith(ending)) as string;
  const gateway = escapeHtml(gatewayUrl);
  return readFileSync(`${HERE}index.html`, 'utf8')
    .replaceAll('{{gateway}}', gateway)
    .replaceAll('{{demoImages}}', escapeHtml(DEMO_IMAGE_ORIGIN))
    .replace('{{script}}', find('.js'))
    .replace('{{stylesheet}}', find('.css'));
}

/**
 * The demo data's images name a CDN that does not exist: each is drawn here instead, a tint of its own from its
 * path, so that the page is whole offline. A listing with real images needs none of this.
 */
function placeholder(path: string): Asset {
  const hue = createHash('sha256').update(path).digest().readUInt16BE(0) % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300"><rect width="400" height="300" fill="hsl(${hue} 40% 82%)"/><circle cx="200" cy="150" r="54" fill="none" stroke="hsl(${hue} 35% 45%)" stroke-width="14"/><rect x="120" y="92" width="160" height="116" rx="14" fill="none" stroke="hsl(${hue} 35% 45%)" stroke-width="10"/></svg>`;
  return asset(TYPES['.svg'] as string, svg, IMMUTABLE);
}

/** The page's rules for the browser: scripts and styles from here only, data from here and the gateway. */
function securityHeaders(gatewayUrl: string): Record<string, string> {
  const csp = [
    "default-src 'self'",
    `connect-src 'self' ${new URL(gatewayUrl).origin}`,
    "img-src 'self' https: data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' };
}

/** Writes the asset, compressed as the browser accepts, or 304 when the browser holds it already. */
function send(request: IncomingMessage, response: ServerResponse, found: Asset, status = 200, extra = {}): void {
  const headers: Record<string, string> = {
    'content-type': found.type,
    'cache-control': found.cacheControl,
    etag: found.etag,
    vary: 'Accept-Encoding',
    ...extra,
  };
  if (status === 200 && request.headers['if-none-match'] === found.etag) {
    response.writeHead(304, headers).end();
    return;
  }
  const accepted = String(request.headers['accept-encoding'] ?? '');
  const coding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : 'identity';
  const body = found[coding];
  if (coding !== 'identity') headers['content-encoding'] = coding;
  headers['content-length'] = String(body.length);
  response.writeHead(status, headers).end(request.method === 'HEAD' ? undefined : body);
}

export interface Storefront {
  url: string;
  close(): Promise<void>;
}

/** Routes the page draws itself: the listing, and a package by its slug. */
const PAGE_ROUTES = /^\/(?:packages\/[^/]+)?$/;

export async function startStorefront(options: {
  port: number;
  host: string;
  gatewayUrl: string;
}): Promise<Storefront> {
  const gatewayUrl = options.gatewayUrl.replace(/\/+$/, '');
  const assets = await bundle();
  const html = asset(TYPES['.html'] as string, shell(gatewayUrl, assets), 'no-cache');
  const favicon = asset(TYPES['.svg'] as string, readFileSync(`${HERE}favicon.svg`), IMMUTABLE);
  assets.set('/favicon.svg', favicon);
  // Where a browser looks for the icon of a page that names none (an image or an asset opened by itself).
  assets.set('/favicon.ico', favicon);
  const pageHeaders = securityHeaders(gatewayUrl);

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://storefront').pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-length': '0' }).end();
    } else if (PAGE_ROUTES.test(path)) send(request, response, html, 200, pageHeaders);
    else if (assets.has(path)) send(request, response, assets.get(path) as Asset);
    else if (path.startsWith('/demo-images/')) send(request, response, placeholder(path));
    // Any other address: the same page, which says it has nothing there, under a 404.
    else send(request, response, html, 404, pageHeaders);
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const gatewayUrl = process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000';
  const storefront = await startStorefront({
    port: Number(process.env.STOREFRONT_PORT ?? 5173),
    host: process.env.STOREFRONT_HOST ?? '127.0.0.1',
    gatewayUrl,
  });
  console.log(`Storefront: ${storefront.url}/ (gateway ${gatewayUrl})`);
  const stop = () => void storefront.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
