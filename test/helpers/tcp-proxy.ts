// A TCP proxy of our own between the server under test and PostgreSQL, to cut the database off without touching
// the machine's cluster: `pass` forwards, `reset` refuses every connection (and resets the open ones), `blackhole`
// accepts and never answers (and goes silent on the open ones), as a dead host or a stuck network would.
import { createServer, Socket } from 'node:net';

export type ProxyMode = 'pass' | 'reset' | 'blackhole';

export interface TcpProxy {
  port: number;
  /** A URL like `target` with this proxy as its host and port. */
  url(target: string): string;
  setMode(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  const pairs = new Set<[Socket, Socket]>();
  const silent = new Set<Socket>();

  const server = createServer((client) => {
    client.on('error', () => {});
    if (mode === 'reset') return void client.resetAndDestroy();
    if (mode === 'blackhole') {
      silent.add(client);
      client.on('close', () => silent.delete(client));
      client.resume(); // read and drop whatever comes
      return;
    }
    const upstream = new Socket();
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const forget = () => pairs.delete(pair);
    client.on('close', forget);
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.connect(target.port, target.host, () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    url(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    setMode(next) {
      mode = next;
      for (const [client, upstream] of pairs) {
        if (next === 'reset') {
          client.resetAndDestroy();
          upstream.destroy();
        } else if (next === 'blackhole') {
          // Stop forwarding both ways; the connection stays open and says nothing more.
          client.unpipe(upstream);
          upstream.unpipe(client);
          upstream.pause();
          client.resume();
          silent.add(client);
        }
      }
      if (next === 'reset' || next === 'blackhole') pairs.clear();
      if (next === 'pass') {
        for (const socket of silent) socket.destroy();
        silent.clear();
      }
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const socket of silent) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
