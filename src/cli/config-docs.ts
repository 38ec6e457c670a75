// `npm run docs:config`: writes docs/configuration.md from the environment's schema (src/environment.ts).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../config-docs.js';

writeFileSync(fileURLToPath(new URL(`../../${CONFIGURATION_DOC}`, import.meta.url)), renderConfigurationDoc());
console.log(`wrote ${CONFIGURATION_DOC}`);
