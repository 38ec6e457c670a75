// Varnish 7 with the xkey module (Debian: varnish, varnish-modules) running deploy/varnish/default.vcl in front of
// two gateway addresses, in a private working directory; stopped by PID.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** Varnish on the project's VCL, its two backends pointed at the gateways' ports. */
export async function startVarnish(gatewayPorts: [number, number], port?: number): Promise<Varnish> {
  const work = mkdtempSync(join(tmpdir(), 'varnish-'));
  // varnishd compiles the VCL and runs its worker as its own unprivileged user: they must reach the directory.
  chmodSync(work, 0o777);
  const vcl = readFileSync(VCL, 'utf8')
    .replace(/(backend gateway_1 \{[^}]*\.port = ")\d+/, `$1${gatewayPorts[0]}`)
    .replace(/(backend gateway_2 \{[^}]*\.port = ")\d+/, `$1${gatewayPorts[1]}`);
  writeFileSync(join(work, 'default.vcl'), vcl);
  const listen = port ?? (await freePort());
  const child = spawn(
    VARNISHD,
    ['-F', '-n', join(work, 'state'), '-a', `127.0.0.1:${listen}`, '-f', join(work, 'default.vcl'), '-s', 'malloc,64m'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${listen}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`varnishd exited with ${child.exitCode}: ${output}`);
    const answered = await fetch(`${url}/.xkey-purge`, { method: 'POST', headers: { 'xkey-purge': 'none' } })
      .then((response) => response.ok)
      .catch(() => false);
    if (answered) break;
    if (i > 100) throw new Error(`varnishd did not answer within 10 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(work, { recursive: true, force: true });
    },
  };
}
