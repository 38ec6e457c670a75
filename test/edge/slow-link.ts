// A slow way back from a gateway to the CDN: a TCP proxy that forwards requests at once and holds every chunk of
// the answers for `delayMs` (in order), as a congested link would. Set during an import's purge window, an answer
// made from the old version just before the import commits reaches Varnish after the first purge of that
// version: the race the second purge (REQUEST_TIMEOUT plus a margin later, src/cache/purge.ts) is there for.
import { createServer, Socket } from 'node:net';

export interface SlowLink {
  port: number;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startSlowLink(target: { host: string; port: number }): Promise<SlowLink> {
  let delayMs = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = new Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk) => upstream.write(chunk));
    // Each chunk leaves `delayMs` after it came, and never before the one ahead of it; the end after the last.
    let last = 0;
    const later = (send: () => void, delay: number) => {
      last = Math.max(Date.now() + delay, last);
      setTimeout(send, last - Date.now());
    };
    upstream.on('data', (chunk) => later(() => client.write(chunk), delayMs));
    upstream.on('close', () => later(() => client.end(), 0));
    upstream.connect(target.port, target.host);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    setDelay: (ms) => {
      delayMs = ms;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
