// The running server's side of a live import on the embedded database (src/import/live-channel.ts): a Unix socket
// in the data directory takes one import at a time. The records are spooled to a temporary file first, so the
// import's transaction, which holds PGlite (reads wait for it, then see the new listing whole), lasts as long as
// the writing, not as long as the tool takes to read and send its source. A tool that leaves before the end takes
// its import with it (rolled back); a server that stops rolls back the import under way and says so.
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Database } from '../db/client.js';
import { Interrupted } from '../lifecycle.js';
import { describeFailure } from '../messages.js';
import { importSource } from './importer.js';
import { jsonLines } from './lines.js';
import { type ChannelEvent, IMPORT_PATH, importSocketPath, MAX_SOCKET_PATH } from './live-channel.js';
import type { Source, SourceItem } from './source.js';

export interface ImportChannel {
  /** Where the tool reaches it; null when the data directory's path is too long for a socket. */
  path: string | null;
  /** Refuses new imports, rolls back the one under way, and removes the socket. */
  close(): Promise<void>;
}

/** The spooled records as a source: the items as the tool read them, with how far the import has read. */
function spooledSource(label: string, file: string, bytes: number): Source {
  let done = 0;
  return {
    label,
    async *records(): AsyncGenerator<SourceItem> {
      for await (const line of jsonLines(createReadStream(file))) {
        done += Buffer.byteLength(line) + 1;
        if (line !== '') yield JSON.parse(line) as SourceItem;
      }
    },
    progress: () => ({ done, total: bytes, unit: 'bytes' }),
  };
}

export async function openImportChannel(options: {
  dataDir: string;
  db: Database;
  logger: Pick<Logger, 'info' | 'warn'>;
}): Promise<ImportChannel> {
  const path = importSocketPath(options.dataDir);
  if (path.length > MAX_SOCKET_PATH) {
    options.logger.warn(
      `live imports are off: the socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes (use a shorter DATA_DIR)`,
    );
    return { path: null, close: async () => {} };
  }
  let running: AbortController | null = null;
  /** The import under way, to its end (rolled back or answered). */
  let under: Promise<void> = Promise.resolve();
  let closing = false;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://import');
    if (request.method !== 'POST' || url.pathname !== IMPORT_PATH) {
      response.writeHead(404).end();
      return;
    }
    if (closing || running) {
      response.writeHead(409, { 'content-type': 'application/x-ndjson' });
      const why = closing ? 'the server is stopping' : 'another import is running on this server; try again after it';
      response.end(`${JSON.stringify({ error: why } satisfies ChannelEvent)}\n`);
      return;
    }
    const aborted = new AbortController();
    running = aborted;
    let ended = () => {};
    under = new Promise((resolve) => {
      ended = resolve;
    });
    const label = url.searchParams.get('label') ?? 'import';
    const spool = await mkdtemp(join(tmpdir(), 'gateway-import-'));
    const send = (event: ChannelEvent) => {
      if (!response.destroyed) response.write(`${JSON.stringify(event)}\n`);
    };
    // The tool gone before the answer's end: its import is abandoned (the transaction rolls back).
    response.on('close', () => {
      if (!response.writableFinished) aborted.abort(new Interrupted('parent exited'));
    });
    try {
      const file = join(spool, 'records.jsonl');
      await pipeline(request, createWriteStream(file));
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      options.logger.info(`import of ${label}: taken from the import tool`);
      // The server reads only until an import comes (the writing client costs some 15 MB): from now on it writes.
      await options.db.enableWrites();
      let told = 0;
      const report = await importSource(options.db, spooledSource(label, file, (await stat(file)).size), {
        signal: aborted.signal,
        onPhase: (phase) => send({ phase }),
        onProgress: (progress) => {
          if (performance.now() - told < 1000) return;
          told = performance.now();
          send({ progress });
        },
      });
      options.logger.info(`import of ${label}: ${report.status} in ${report.seconds.toFixed(1)} s`);
      send({ report });
    } catch (error) {
      const why =
        error instanceof Interrupted
          ? closing
            ? 'the server is stopping: rolled back, nothing of this import was written'
            : 'the import tool left: rolled back'
          : describeFailure(error);
      options.logger.warn(`import of ${label}: ${why}`);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/x-ndjson' });
      send({ error: why });
    } finally {
      running = null;
      response.end();
      await rm(spool, { recursive: true, force: true });
      ended();
    }
  }

  // The server holds the data directory's lock: a socket file left here is a stopped server's.
  await unlink(path).catch(() => {});
  const server = createServer((request, response) => void serve(request, response));
  server.requestTimeout = 0; // a large source takes as long as it takes to send
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  await chmod(path, 0o600);
  return {
    path,
    async close() {
      closing = true;
      running?.abort(new Interrupted('SIGTERM'));
      await under;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await unlink(path).catch(() => {});
    },
  };
}
