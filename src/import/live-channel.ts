// What the import tool and a running server on the embedded database say to each other. The server holds the data
// directory (PGlite is one process's), so an import while it serves is handed to it: over a Unix socket in the data
// directory, which only the directory's owner can reach (mode 0600: the file system is the authentication). The
// tool sends one source's records as JSON Lines, each `{where, path, value}` as it read them; the server spools
// them (in the data directory too, bounded), imports them in one transaction as the tool would
// (src/import/importer.ts), and answers with JSON Lines of its own: `{"phase"}` as each step begins, `{"progress"}`
// about once a second, then `{"report"}`, or `{"error"}`.
import { join } from 'node:path';
import type { ImportPhase, SourceReport } from './importer.js';

export const IMPORT_SOCKET = 'import.sock';
export const IMPORT_PATH = '/import';

export const IMPORT_SPOOL = 'import.spool';

/** The socket of the server holding `dataDir`. */
export const importSocketPath = (dataDir: string) => join(dataDir, IMPORT_SOCKET);

/** Where that server spools the import under way; removed once it ends, and at the server's start. */
export const importSpoolPath = (dataDir: string) => join(dataDir, IMPORT_SPOOL);

/** Room a record's line takes beside the record itself (its `where` and `path`), past IMPORT_MAX_LINE_BYTES. */
export const PLACE_BYTES = 64 * 1024;

/** A Unix socket's path is at most this long (sun_path, less its terminating zero). */
export const MAX_SOCKET_PATH = 107;

/** One line of the server's answer. */
export type ChannelEvent =
  | { phase: ImportPhase }
  | { progress: SourceReport }
  | { report: SourceReport }
  | { error: string };
