// The base address the v2 links are built on. Never the request's Host header unless told to trust a proxy:
// a client could otherwise make the service hand out links to any host.
import type { Config } from '../config.js';
import type { RequestHead } from './request-head.js';

/** The base address of the v2 links for a request (a fetch Request has a URL; a node:http one's head has not). */
export type PublicBase = (request: Pick<RequestHead, 'headers'> & { url?: string }) => string;

export function publicBaseFor(config: Pick<Config, 'publicUrl' | 'trustProxy'>, listening: string): PublicBase {
  if (config.publicUrl) {
    const fixed = config.publicUrl;
    return () => fixed;
  }
  if (config.trustProxy) {
    return (request) => {
      const first = (name: string) => request.headers.get(name)?.split(',')[0]?.trim();
      const proto = first('x-forwarded-proto') === 'https' ? 'https' : 'http';
      const host = first('x-forwarded-host') ?? request.headers.get('host');
      return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `${proto}://${host}` : listening;
    };
  }
  return () => listening;
}

/** What a client on this machine would type for a listening address (0.0.0.0 and :: mean every interface). */
export function listeningBase(host: string, port: number): string {
  const reachable =
    host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachable}:${port}`;
}
