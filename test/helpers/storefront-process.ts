// The web storefront (examples/storefront/web) as `npm run storefront` runs it: a process of its own on a free port,
// in front of a gateway (for the browser tests and bench/storefront.ts).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StorefrontProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts the storefront's server against `gatewayUrl`; resolves once it prints its address. */
export function startStorefrontProcess(gatewayUrl: string): Promise<StorefrontProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/storefront/web/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, STOREFRONT_PORT: '0', GATEWAY_URL: gatewayUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the storefront did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const address = /Storefront: (http:\/\/\S+?)\/ /.exec(output)?.[1];
      if (!address) return;
      clearTimeout(timer);
      resolve({
        url: address,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`the storefront exited before listening:\n${output}`)));
  });
}
