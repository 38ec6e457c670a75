// `npm run schema:check [-- --against FILE]`: would this schema break a client? Compares the schema the code
// builds with the committed src/graphql/schema.graphql (or FILE) and with the one on the main branch when git has
// it; fails on a breaking change not recorded, with its reason, in src/graphql/accepted-changes.json. Then
// validates the clients' documents against the schema: the persisted operations manifest and the GraphQL
// documents under examples/. Exit code 1 on any failure, each on its own line.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_FILE, schema, schemaText } from '../graphql/schema.js';
import { type AcceptedChange, compareSchemas, describeChange, invalidDocuments } from '../graphql/schema-changes.js';
import { readArguments } from './arguments.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ACCEPTED_FILE = join(ROOT, 'src/graphql/accepted-changes.json');
const MANIFEST = join(ROOT, 'examples/storefront/generated/persisted-documents.json');
const MAIN_BRANCHES = ['origin/main', 'main'];

function options() {
  try {
    return readArguments(
      { options: { against: { type: 'string' } } },
      'usage: npm run schema:check [-- --against FILE]',
    ).values;
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    process.exit(1);
  }
}

const values = options();
const accepted = JSON.parse(readFileSync(ACCEPTED_FILE, 'utf8')) as AcceptedChange[];
const failures: string[] = [];

/** The committed schema on the main branch, or undefined outside git or without such a branch. */
function mainBranchSchema(): { ref: string; sdl: string } | undefined {
  for (const ref of MAIN_BRANCHES) {
    try {
      const sdl = execFileSync('git', ['show', `${ref}:src/graphql/schema.graphql`], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).toString();
      return { ref, sdl };
    } catch {
      // no git, or no such branch: try the next
    }
  }
  return undefined;
}

async function compareWith(label: string, sdl: string): Promise<void> {
  const { breaking, accepted: known, others } = await compareSchemas(sdl, schemaText(), accepted);
  console.log(
    `against ${label}: ${breaking.length} breaking, ${known.length} accepted, ${others.length} other changes`,
  );
  for (const { change, reason } of known) console.log(`  accepted  ${describeChange(change, reason)}`);
  for (const change of others)
    console.log(`  ${change.criticality.level.toLowerCase().padEnd(9)} ${describeChange(change)}`);
  for (const change of breaking) failures.push(`breaking against ${label}: ${describeChange(change)}`);
}

const committedFile = values.against ?? SCHEMA_FILE;
const committed = readFileSync(committedFile, 'utf8');
await compareWith(values.against ?? 'src/graphql/schema.graphql', committed);
if (values.against === undefined && committed !== schemaText()) {
  failures.push(
    'src/graphql/schema.graphql differs from the schema the code builds: run `npm run codegen` and commit it',
  );
}
const main = values.against === undefined ? mainBranchSchema() : undefined;
if (main) await compareWith(`${main.ref}'s schema.graphql`, main.sdl);
else if (values.against === undefined) console.log('no main branch in git: compared with the committed schema only');

const documents: Record<string, string> = {};
if (existsSync(MANIFEST)) {
  for (const [hash, text] of Object.entries(JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>)) {
    documents[`persisted operation ${hash.slice(0, 12)}`] = text;
  }
} else {
  failures.push(`no persisted operations manifest at ${MANIFEST}: run \`npm run codegen\``);
}
for (const file of readdirSync(join(ROOT, 'examples'), { recursive: true, encoding: 'utf8' })) {
  if (file.endsWith('.graphql')) documents[`examples/${file}`] = readFileSync(join(ROOT, 'examples', file), 'utf8');
}
const problems = invalidDocuments(schema, documents);
console.log(`clients' documents: ${Object.keys(documents).length} checked, ${problems.length} invalid`);
failures.push(...problems.map((problem) => `invalid document: ${problem}`));

for (const failure of failures) console.error(`error: ${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
