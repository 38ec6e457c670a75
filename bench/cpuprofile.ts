// Summarises V8 CPU profiles (node --cpu-prof) of the server: self time by package or source file, and the
// functions with the most self time. Idle time is left out of the percentages.
//
//   BENCH_ENGINES=postgresql BENCH_SCENARIOS=graphql-full \
//     BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench
//   npx tsx bench/cpuprofile.ts [--skip=8] /tmp/prof/*.cpuprofile [top]
//
// --skip=S leaves out the first S seconds (start-up, module compilation, the warm-up).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives: an npm package, a file of the project, or V8/Node itself. */
function owner(url: string, name: string): string {
  // No source: V8/Node built-ins, or code generated at run time (graphql-jit's compiled resolvers).
  if (!url) return name.startsWith('(') ? name : '(native or generated)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg?.[1]) return pkg[1];
  const project = /\/work\/[^/]+\/(.+)$/.exec(url.replace(/^file:\/\//, ''));
  if (project?.[1]) return project[1];
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

function summarise(file: string, top: number, skipSeconds: number): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time between sample i-1 and sample i; charge it to sample i.
  let at = 0;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= skipSeconds * 1e6) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }

  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const where = owner(url, functionName);
    byOwner.set(where, (byOwner.get(where) ?? 0) + us);
    const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const total = profile.endTime - profile.startTime - skipSeconds * 1e6;
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`,
      )
      .join('\n');
  console.log(
    `${file}: ${(total / 1e6).toFixed(1)} s profiled${skipSeconds ? ` after the first ${skipSeconds} s` : ''}, ${(busy / 1e6).toFixed(1)} s busy (not idle)`,
  );
  console.log(`\nself time by package / file:\n${rows(byOwner)}`);
  console.log(`\nself time by function:\n${rows(byFunction)}\n`);
}

const skipOption = process.argv.find((arg) => arg.startsWith('--skip='));
const skip = skipOption ? Number(skipOption.slice('--skip='.length)) : 0;
const args = process.argv.slice(2).filter((arg) => arg !== skipOption);
const top = /^\d+$/.test(args.at(-1) ?? '') ? Number(args.pop()) : 25;
if (args.length === 0) {
  console.error('usage: tsx bench/cpuprofile.ts [--skip=S] <file.cpuprofile>... [top]');
  process.exit(2);
}
for (const file of args) summarise(file, top, skip);
