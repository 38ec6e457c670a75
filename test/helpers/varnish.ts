// Varnish 7 with the xkey module (Debian: varnish, varnish-modules) running deploy/varnish/default.vcl in front of
// two gateway addresses, in a private working directory; stopped by PID.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnCollecting, started } from './fleet.js';
import { freePort } from './processes.js';

export const VARNISHD = '/usr/sbin/varnishd';
const VCL = fileURLToPath(new URL('../../deploy/varnish/default.vcl', import.meta.url));
const XKEY = '/usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so';

export const varnishInstalled = () => existsSync(VARNISHD) && existsSync(XKEY);

export interface Varnish {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Varnish on the project's VCL (or another, `vclPath`), its two backends pointed at the gateways' ports. */
export async function startVarnish(gatewayPorts: [number, number], port?: number, vclPath = VCL): Promise<Varnish> {
  const work = mkdtempSync(join(tmpdir(), 'varnish-'));
  // varnishd compiles the VCL and runs its worker as its own unprivileged user: they must reach the directory.
  chmodSync(work, 0o777);
  const vcl = readFileSync(vclPath, 'utf8')
    .replace(/(backend gateway_1 \{[^}]*\.port = ")\d+/, `$1${gatewayPorts[0]}`)
    .replace(/(backend gateway_2 \{[^}]*\.port = ")\d+/, `$1${gatewayPorts[1]}`);
  writeFileSync(join(work, 'default.vcl'), vcl);
  const listen = port ?? (await freePort());
  const { child, output } = spawnCollecting(VARNISHD, [
    '-F',
    '-n',
    join(work, 'state'),
    '-a',
    `127.0.0.1:${listen}`,
    '-f',
    join(work, 'default.vcl'),
    '-s',
    'malloc,64m',
  ]);
  const process = await started(child, listen, 'varnishd', output);
  return {
    url: `http://127.0.0.1:${listen}`,
    output,
    async stop() {
      await process.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
