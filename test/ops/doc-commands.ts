// The operations guide's procedures, run as written: a fenced sh block of docs/operations.md, its names replaced by
// a test's own (databases, roles, files: the test server is shared), each line run with sh from the project's root,
// and a line that starts the server (`... npm start`) started as the server process with that line's variables.
import { examplesOf, ROOT } from '../docs/doc-examples.js';
import { shell } from '../docs/doc-runners.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

/** The text of the one sh block of docs/operations.md whose first line starts with `starts`. */
export function operationsBlock(starts: string): string {
  const found = examplesOf('docs/operations.md').filter((e) => e.lang === 'sh' && e.text.startsWith(starts));
  if (found.length !== 1) throw new Error(`docs/operations.md: ${found.length} sh blocks start with ${starts}`);
  return (found[0] as { text: string }).text;
}

/** The block with each name replaced, longest names first (so `listing_restored` goes before `listing`). */
export function renamed(block: string, names: Record<string, string>): string {
  const order = Object.keys(names).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(order.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return block.replace(pattern, (name) => names[name] as string);
}

/**
 * Runs the block's lines in order; a line ending in `npm start` starts the server with its variables (and
 * `extraEnv`) instead, and is returned. Stops at the first line that fails, with its output.
 */
export async function runBlock(
  block: string,
  extraEnv: Record<string, string> = {},
): Promise<ServerProcess | undefined> {
  let server: ServerProcess | undefined;
  for (const line of block.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))) {
    const start = /^((?:[A-Z_]+=\S+ )*)npm start$/.exec(line);
    if (start) {
      const env = Object.fromEntries(
        (start[1] ?? '')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
      server = await startServer({ ...env, ...extraEnv });
      continue;
    }
    const ran = await shell(line, '', { cwd: ROOT, timeout: 120_000 });
    if (ran.code !== 0) throw new Error(`${line}\nexited ${ran.code}:\n${ran.stdout}${ran.stderr}`);
  }
  return server;
}
