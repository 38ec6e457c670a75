// The first start of a new embedded database, in a process of its own (see prepareDatabase in startup.ts): makes
// the database, applies the migrations and loads the demo data, then exits, giving back the memory that took.
// Stopped by SIGTERM/SIGINT or by its parent's end, it rolls the unfinished work back.
import { loadConfig } from './config.js';
import { onStop } from './lifecycle.js';
import { createLogger } from './logger.js';
import { describeStartupFailure, prepareDatabase } from './startup.js';

const config = loadConfig();
const log = createLogger({ level: config.logLevel, format: config.logFormat });
onStop((reason) => {
  log.warn(`${reason}: the new embedded database was not prepared`);
  process.exit(1);
});
try {
  const db = await prepareDatabase(config, log, true);
  await db.close();
  process.exit(0);
} catch (error) {
  log.fatal(describeStartupFailure(error));
  process.exit(1);
}
