// `npm run generate` (and `npm install`): the Prisma client and the Pothos types from prisma/schema.prisma, by the
// generators the schema names, as `prisma generate` runs them, without the prisma CLI. Generating is all this
// project asks of that CLI (migrations run on @prisma/schema-engine-wasm: src/db/schema-engine.ts), and it brings
// Prisma Studio and a local Prisma Postgres server along, some 220 MB of node_modules; Prisma's own generator
// library and the schema loader the CLI is built on bring a quarter of that.
import { createRequire } from 'node:module';

// Prisma's libraries are CommonJS whose names Node's ESM loader cannot see statically: required, typed as imported.
const require = createRequire(import.meta.url);
const { PrismaClientTsGenerator } =
  require('@prisma/client-generator-ts') as typeof import('@prisma/client-generator-ts');
const { enginesVersion } = require('@prisma/engines-version') as typeof import('@prisma/engines-version');
const { getGenerators, loadSchemaContext } = require('@prisma/internals') as typeof import('@prisma/internals');

const started = performance.now();
const schemaContext = await loadSchemaContext({
  schemaPath: { cliProvidedPath: 'prisma/schema.prisma' },
  printLoadMessage: false,
});
const generators = await getGenerators({
  schemaContext,
  version: enginesVersion,
  // `prisma-client` runs here, as in the CLI; any other provider (prisma-pothos-types) is its own process, found on
  // the PATH that npm gives its scripts.
  registry: { 'prisma-client': { type: 'in-process', generator: new PrismaClientTsGenerator() } },
  allowNoModels: false,
  printDownloadProgress: false,
  cliCommand: 'npm run generate', // what Prisma's messages tell to run again
});
for (const generator of generators) {
  try {
    await generator.generate();
    console.log(`generated ${generator.config.name} into ${generator.options?.generator.output?.value}`);
  } finally {
    generator.stop();
  }
}
console.log(`in ${Math.round(performance.now() - started)} ms`);
