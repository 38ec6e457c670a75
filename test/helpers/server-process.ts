// Starts the real server (compiled `src/server.ts`) as a child process, as `npm start` does, and talks to it over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { environment } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  url: string;
  pid: number;
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** src/server.ts -> dist/server.js: the suite compiles src/ first (.config/vitest.global-setup.ts). */
function compiled(script: string): string {
  return script.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
}

/** Characters of a started server's output kept (its last ones past that). */
const KEPT_OUTPUT = 8_000_000;

/** The variables the configuration reads (src/config.ts), from its own schema. */
const CONFIGURATION = new Set(Object.keys(environment.shape));

function launch(script: string, env: Record<string, string>, args: string[] = [], root = ROOT): ChildProcess {
  // The child's configuration is what the test says, not whatever this shell happens to export.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIGURATION.has(k)));
  return spawn(process.execPath, [compiled(script), ...args], {
    cwd: root,
    env: { ...clean, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface RunningScript {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  exited: Promise<Exited>;
}

/** Starts a script (compiled from src/) and collects what it prints. */
export function spawnScript(script: string, env: Record<string, string>, args: string[] = []): RunningScript {
  const child = launch(script, env, args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return {
    child,
    output: () => stdout + stderr,
    exited: new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr }))),
  };
}

/** Runs a script to its end. */
export function runScript(script: string, env: Record<string, string>, args: string[] = []): Promise<Exited> {
  return spawnScript(script, env, args).exited;
}

/**
 * Starts the server and resolves once it prints its URL; rejects with its output if it exits first. `root`: a
 * copy of the project to run instead (its dist/ beside node_modules/), for tests of another build.
 */
export function startServer(env: Record<string, string>, root = ROOT): Promise<ServerProcess> {
  const child = launch('src/server.ts', env, [], root);
  let output = '';
  let listening = false;
  // A server under long load logs a line per request: what it says is kept to the last few MB, and looked for
  // its address only until it is found.
  const keep = (chunk: Buffer) => {
    output += chunk;
    if (output.length > KEPT_OUTPUT) output = output.slice(-KEPT_OUTPUT / 2);
  };
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      keep(chunk);
      if (listening) return;
      const match = /GraphQL and GraphiQL: (http:\/\/[^\s]+)\/graphql/.exec(output);
      if (match?.[1]) {
        listening = true;
        resolve({
          url: match[1],
          pid: child.pid as number,
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', keep);
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
}
