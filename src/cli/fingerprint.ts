// `npm run build`'s last step: writes the compiled code's fingerprint beside it (src/build-fingerprint.ts), with the
// commit it was built from (src/build-info.ts: SOURCE_COMMIT, else the checkout's HEAD, else "unknown").
// Usage: node dist/cli/fingerprint.js [code root, by default the dist/ this script is in]
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CODE_ROOT, FINGERPRINT_FILE, fingerprintOf } from '../build-fingerprint.js';
import { commitAtBuild } from '../build-info.js';

const root = resolve(process.argv[2] ?? CODE_ROOT);
const fingerprint = fingerprintOf(root);
const commit = commitAtBuild(root);
writeFileSync(join(root, FINGERPRINT_FILE), `${JSON.stringify({ fingerprint, commit })}\n`);
console.log(`build fingerprint ${fingerprint}, commit ${commit} (${root})`);
