// `npm run build`'s last step: writes the compiled code's fingerprint beside it (src/build-fingerprint.ts).
// Usage: node dist/cli/fingerprint.js [code root, by default the dist/ this script is in]
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CODE_ROOT, FINGERPRINT_FILE, fingerprintOf } from '../build-fingerprint.js';

const root = resolve(process.argv[2] ?? CODE_ROOT);
const fingerprint = fingerprintOf(root);
writeFileSync(join(root, FINGERPRINT_FILE), `${JSON.stringify({ fingerprint })}\n`);
console.log(`build fingerprint ${fingerprint} (${root})`);
