// The Dockerfile's steps, done here without a container engine: a clean directory with the compiled output, the
// schema and its migrations, the lock file and `npm ci --omit=dev`; then `node dist/server.js` serves, with no
// TypeScript loader and no development tool installed. And `npm start` there: SIGTERM to npm's own process id
// stops the server cleanly, as a container runtime or a process manager would send it.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../import/helpers.js';

const root = process.cwd();
const image = tempDir('image-');

beforeAll(() => {
  for (const entry of ['package.json', 'package-lock.json', 'prisma', 'dist']) {
    cpSync(join(root, entry), join(image.path, entry), { recursive: true });
  }
  execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: image.path,
    stdio: 'ignore',
    timeout: 170_000,
  });
}, 180_000);
afterAll(() => image.remove());

const env = (dataDir: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: '0',
  DATA_DIR: dataDir,
  SEED_PACKAGES: '20',
  LOG_FORMAT: 'json',
  // What production asks a demo on the embedded database to say: demo data, its origins, a public v2 path; and
  // /metrics on a free port of its own, so that runs side by side do not meet on 9464.
  DEMO: 'true',
  CORS_ORIGINS: 'https://shop.example.com',
  V2_PUBLIC: 'true',
  METRICS_PORT: '0',
});

/** Starts a command in the image directory and resolves with its base URL once it listens. */
function start(command: string, args: string[], dataDir: string) {
  const child = spawn(command, args, { cwd: image.path, env: env(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /GraphQL and GraphiQL: (http:\/\/[^\s"]+)\/graphql/.exec(output);
      if (match?.[1]) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 100);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`exited with ${code}: ${output}`));
    });
  });
  return { child, url, exited, output: () => output };
}

describe('the production image, built as the Dockerfile builds it', () => {
  it('has production dependencies only, and serves from compiled JavaScript', async () => {
    for (const tool of ['tsx', 'vitest', '@biomejs/biome', '@graphql-codegen/cli', 'autocannon', 'playwright-core']) {
      expect(existsSync(join(image.path, 'node_modules', tool)), tool).toBe(false);
    }
    // The Dockerfile's own command line.
    const command = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1] ?? '[]');
    expect(command[0]).toBe('node');
    const server = start(process.execPath, command.slice(1), join(image.path, 'data-1'));
    try {
      const url = await server.url;
      const cmdline = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(cmdline.slice(1)).toEqual(command.slice(1));
      expect(cmdline.at(-1)).toBe('dist/server.js');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const page = (await (await fetch(`${url}/v2/local-package-list/?limit=5`)).json()) as { count: number };
      expect(page.count).toBe(20);
      // The Dockerfile's HEALTHCHECK command, as it runs it.
      const port = new URL(url).port;
      const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
      const check = /CMD node -e "(.+)"\n/.exec(dockerfile)?.[1];
      expect(check).toBeDefined();
      execFileSync(process.execPath, ['-e', check as string], { env: { PORT: port }, timeout: 5000 });
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it("npm start: SIGTERM to npm's own process stops the server cleanly", async () => {
    const npm = start('npm', ['start', '--silent'], join(image.path, 'data-2'));
    const url = await npm.url;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    npm.child.kill('SIGTERM');
    expect(await npm.exited).toBe(0);
    expect(npm.output()).toContain('"msg":"stopped"');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
