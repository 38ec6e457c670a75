// How the docs test runs an example: a shell command as a reader types it (only the host and port changed to
// the test server's), its output held to what the doc shows (`...` stands for anything, a figure of seconds for
// any such figure), and GraphQL operations validated against the schema and sent to the server.
import { execFile, spawn } from 'node:child_process';
import { Kind, parse, print, validate } from 'graphql';
import { schema } from '../../src/graphql/schema.js';
import { ROOT } from './doc-examples.js';

/** The address the docs use for a local server. */
export const DOC_URL = 'http://127.0.0.1:4000';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line with sh in `cwd`, the docs' address replaced by `url`; `timeout` in ms ends it. */
export function shell(
  command: string,
  url: string,
  options: { cwd?: string; timeout?: number; env?: Record<string, string> } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', command.replaceAll(DOC_URL, url)],
      {
        cwd: options.cwd ?? ROOT,
        timeout: options.timeout ?? 60_000,
        env: { ...process.env, ...options.env },
        maxBuffer: 64 << 20,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** A command that runs until stopped (a stream), with what it has printed so far. */
export function streaming(command: string, url: string): { output(): string; stop(): void } {
  const child = spawn('sh', ['-c', command.replaceAll(DOC_URL, url)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  return { output: () => output, stop: () => child.kill('SIGTERM') };
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The doc's output as a pattern: `...` any text, `0.4 s` any number of seconds, a timestamp any timestamp, the
 * docs' address the server's.
 */
export function outputPattern(shown: string, url: string): RegExp {
  const parts = shown
    .replaceAll(DOC_URL, url)
    .split(/(\.\.\.|\b\d+(?:\.\d+)? s\b|\d{4}-\d\d-\d\dT[\d:.]+Z)/)
    .map((part, i) =>
      i % 2 === 0
        ? literal(part)
        : part === '...'
          ? '[\\s\\S]*?'
          : part.endsWith(' s')
            ? '\\d+(?:\\.\\d+)? s'
            : '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z',
    );
  return new RegExp(`^${parts.join('')}$`);
}

/** The `# ...` comment lines under a command in a sh block: what the doc says it prints. */
export function shownOutput(block: string): { command: string; output: string } {
  const lines = block.split('\n');
  const output = lines.filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
  const command = lines.filter((line) => !line.startsWith('# ')).join('\n');
  return { command, output: output.join('\n') };
}

/** The operations of a GraphQL block, each as a document of its own (a block may list several). */
export function operationsOf(block: string): string[] {
  const document = parse(block);
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return document.definitions
    .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => print({ kind: Kind.DOCUMENT, definitions: [operation, ...fragments] }));
}

/** The schema's objections to a document, as messages. */
export const invalidAgainstSchema = (document: string): string[] =>
  validate(schema, parse(document)).map((error) => error.message);

/** Sends a query as JSON and returns the answer's body. */
export async function postQuery(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; body: { data?: unknown; errors?: unknown[] } }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
}

/** The value of a counter in a /metrics text (summed over its labels). */
export function counter(metrics: string, name: string): number {
  let sum = 0;
  for (const match of metrics.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'gm')))
    sum += Number(match[1]);
  return sum;
}

/** The metric names a /metrics text declares (# TYPE lines). */
export const exposedMetrics = (metrics: string): Set<string> =>
  new Set([...metrics.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] as string));
