// Starts the real server (`src/server.ts`) as a child process, as `npm start` does, and talks to it over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  url: string;
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(script: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'DATA_DIR', 'PORT'].includes(k)),
  );
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...clean, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a script to its end. */
export function runScript(script: string, env: Record<string, string>, args: string[] = []): Promise<Exited> {
  const child = launch(script, env, args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Starts the server and resolves once it prints its URL; rejects with its output if it exits first. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = launch('src/server.ts', env);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /GraphQL and GraphiQL: (http:\/\/[^\s]+)\/graphql/.exec(output);
      if (match?.[1]) {
        resolve({
          url: match[1],
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk) => (output += chunk));
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
}
