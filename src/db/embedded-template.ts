// The embedded database's empty cluster, made ahead of time (the image build runs `npm run db:template`) so that a
// first start unpacks it instead of running initdb. PGlite's initdb runs a second PostgreSQL instance and keeps a
// copy of its memory: some 700 MB for a few seconds, more than a container of 512 MB holds. Unpacking the template
// costs about 80 MB. Without a template (a checkout where it was never made) a first start runs initdb as before.
//
// The template belongs to the PGlite build that made it (its PostgreSQL version and catalog): its name carries
// PGlite's version, and a template of another version is ignored.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** PGlite's version, from its package.json (its exports do not name that file). */
export function pgliteVersion(): string {
  let dir = dirname(require.resolve('@electric-sql/pglite'));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (manifest.name === '@electric-sql/pglite') return manifest.version;
    } catch {}
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the installed @electric-sql/pglite has no package.json');
    dir = parent;
  }
}

/** Where the template of the installed PGlite lives: beside the compiled code (dist/), read-only at run time. */
export function templatePath(): string {
  return fileURLToPath(new URL(`../embedded-template-${pgliteVersion()}.tar.gz`, import.meta.url));
}

/** The template as PGlite's loadDataDir takes it, or undefined when none was made for the installed PGlite. */
export function readTemplate(): Blob | undefined {
  try {
    return new Blob([readFileSync(templatePath())]);
  } catch {
    return undefined;
  }
}

/** Makes the template: a new cluster in memory (initdb), dumped as a gzipped tar. Returns its path. */
export async function makeTemplate(): Promise<string> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create();
  try {
    const dump = await pglite.dumpDataDir('gzip');
    const path = templatePath();
    writeFileSync(`${path}.tmp`, Buffer.from(await dump.arrayBuffer()));
    renameSync(`${path}.tmp`, path);
    return path;
  } finally {
    await pglite.close();
  }
}
