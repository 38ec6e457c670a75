// `npm run db:template`: makes the embedded database's empty cluster for the installed PGlite, which a first start
// unpacks instead of running initdb (src/db/embedded-template.ts). The image build runs it; it takes some 700 MB.
import { makeTemplate } from '../db/embedded-template.js';

console.log(`made ${await makeTemplate()}`);
