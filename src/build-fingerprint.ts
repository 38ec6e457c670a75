// The build's fingerprint: a hash of the compiled code and the locked dependencies, so that a cached answer made
// by one build is never served by another (src/cache/fingerprint.ts puts it in every cache key). `npm run build`
// writes it beside the compiled code (src/cli/fingerprint.ts), so a running server only reads it; run from
// source (tests, `npm run dev`), the server hashes its source files instead, once, at the first cached request.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file `npm run build` writes at the root of the compiled code. */
export const FINGERPRINT_FILE = 'build-fingerprint.json';
const CODE = /\.(js|ts|mjs|cjs|json|graphql)$/;

/** Every file of code under `dir`, as paths relative to it, sorted (the order is the same on every machine). */
function codeFiles(dir: string, root = dir): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...codeFiles(path, root));
    else if (CODE.test(entry.name) && entry.name !== FINGERPRINT_FILE) files.push(relative(root, path));
  }
  return files.sort();
}

/** The hash of the code under `codeRoot` (names and contents) and of the lockfile beside it, if any. */
export function fingerprintOf(codeRoot: string): string {
  const hash = createHash('sha256');
  for (const file of codeFiles(codeRoot)) {
    hash.update(`${file.split('\\').join('/')}\0`);
    hash.update(readFileSync(join(codeRoot, file)));
    hash.update('\0');
  }
  const lockfile = join(codeRoot, '..', 'package-lock.json');
  if (existsSync(lockfile)) hash.update(readFileSync(lockfile));
  return hash.digest('base64url').slice(0, 22);
}

/** The root of the code this module was loaded from: dist/ when built, src/ when run from source. */
export const CODE_ROOT = fileURLToPath(new URL('.', import.meta.url));

let known: string | undefined;

/** This build's fingerprint: written at build time, or hashed from the source when run from it. */
export function buildFingerprint(): string {
  if (known) return known;
  const written = join(CODE_ROOT, FINGERPRINT_FILE);
  known = existsSync(written)
    ? (JSON.parse(readFileSync(written, 'utf8')) as { fingerprint: string }).fingerprint
    : fingerprintOf(CODE_ROOT);
  return known;
}
