// One HTTP request as it goes on the wire, its answer as it comes back: bytes undecoded (fetch would decode a
// compressed body), headers by lowercase name. Used by the tests and by the bench, which records an answer's exact
// bytes for its hit limit (bench/limits/server.ts).
import { request as httpRequest } from 'node:http';

export interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One request with exactly these headers (none added but Host, which a header named host replaces). */
export function send(
  url: string,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<Exchange> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: options.method,
        path: options.path,
        headers: options.headers,
        setHost: !Object.keys(options.headers).some((name) => name.toLowerCase() === 'host'),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    request.on('error', reject);
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}
