// The layers of src/, lowest first: a module may import its own layer and the ones below, never one above, and
// no import circle. `npm run lint` checks it; `npm run deps:graph` draws the folders and their arrows.
const LAYERS = [
  // the foundation: the v2 contract, configuration (its values, which settings change a request, what a start
  // checks), logging, tracing, messages, process lifecycle, API keys, the build's fingerprint and what it is
  // (version, commit)
  '^src/(v2/|types/|config\\.ts|environment\\.ts|environment-values\\.ts|start-checks\\.ts|request-settings\\.ts|config-docs\\.ts|logger\\.ts|tracing\\.ts|messages\\.ts|lifecycle\\.ts|progress\\.ts|api-keys\\.ts|build-fingerprint\\.ts|build-info\\.ts)',
  // storage: the database clients, the read path, migrations, bulk writes
  '^src/db/',
  // what is done with the data: the listing's reads, imports of legacy dumps, the demo data
  '^src/(listing|import|demo)/',
  // the HTTP edge: routes, guards, health, metrics, callers
  '^src/http/',
  // the response cache
  '^src/cache/',
  // the GraphQL schema and its execution
  '^src/graphql/',
  // the v2 REST door, which runs a GraphQL operation
  '^src/rest/',
  // composition: the app and what a start does
  '^src/(app|startup|first-start)\\.ts',
  // entry points: the server and the command-line tools
  '^src/(server\\.ts|cli/)',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other cannot be read, tested or loaded one without the other.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      severity: 'error',
      comment: 'Every module of src/ belongs to one of the layers listed in this file.',
      from: { path: '^src/', pathNot: [...LAYERS, '^src/generated/'] },
      to: {},
    },
    ...LAYERS.slice(0, -1).map((layer, index) => ({
      name: `no-upward-import-from-layer-${index}`,
      severity: 'error',
      comment: 'A lower layer never imports a higher one (see the layer list in this file).',
      from: { path: layer },
      to: { path: LAYERS.slice(index + 1) },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: {
      archi: { collapsePattern: '^src/[^/]+/|^src/[^/]+\\.ts' },
    },
  },
};
