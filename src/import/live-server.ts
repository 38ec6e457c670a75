// The running server's side of a live import on the embedded database (src/import/live-channel.ts): a Unix socket
// in the data directory takes one import at a time. The records are spooled to a file beside it first, so the
// import's transaction, which holds PGlite (reads wait for it, then see the new listing whole), lasts as long as
// the writing, not as long as the tool takes to read and send its source. The spool is bounded, each line and the
// whole, and refused as soon as either bound is passed; it is removed whatever the outcome, and at the next start
// after a kill. A tool that leaves before the end takes its import with it (rolled back); a server that stops rolls
// back the import under way and says so; both are seen at once, while the upload comes and while it is read.
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, rm, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { Interrupted } from '../lifecycle.js';
import { describeFailure } from '../messages.js';
import { importSource } from './importer.js';
import { boundedLines, jsonLines, type LineBounds } from './lines.js';
import {
  type ChannelEvent,
  IMPORT_PATH,
  importSocketPath,
  importSpoolPath,
  MAX_SOCKET_PATH,
  PLACE_BYTES,
} from './live-channel.js';
import { type Source, SourceError, type SourceItem } from './source.js';

export interface ImportChannel {
  /** Where the tool reaches it; null when the data directory's path is too long for a socket. */
  path: string | null;
  /** Refuses new imports, rolls back the one under way, and removes the socket. */
  close(): Promise<void>;
}

const STOPPING = 'the server is stopping: rolled back, nothing of this import was written';
const TOOL_LEFT = 'the import tool left: rolled back';

/** The spooled records as a source: the items as the tool read them, with how far the import has read. */
function spooledSource(label: string, file: string, bytes: number, lines: LineBounds): Source {
  let done = 0;
  return {
    label,
    async *records(): AsyncGenerator<SourceItem> {
      for await (const line of jsonLines(createReadStream(file), lines)) {
        done += Buffer.byteLength(line) + 1;
        if (line !== '') yield JSON.parse(line) as SourceItem;
      }
    },
    progress: () => ({ done, total: bytes, unit: 'bytes' }),
  };
}

/**
 * Writes the upload to `file` (mode 0600: records hold private fields), checking each line and the whole as they
 * come; stops as soon as `signal` aborts. Resolves with its size.
 */
async function spoolUpload(
  request: IncomingMessage,
  file: string,
  bounds: { lines: LineBounds & { maxLineBytes: number }; maxSpoolBytes: number },
  signal: AbortSignal,
): Promise<number> {
  let size = 0;
  const whole = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size <= bounds.maxSpoolBytes) return done(null, chunk);
      done(
        new SourceError(
          `the upload is larger than ${bounds.maxSpoolBytes.toLocaleString('en')} bytes (IMPORT_MAX_SPOOL_BYTES), refused: import it with the server stopped, or raise the bound`,
        ),
      );
    },
  });
  const lines = boundedLines(bounds.lines);
  // Piped rather than in the pipeline, which would destroy the request on a refusal: its answer is still to come.
  const failed = (error: Error) => lines.destroy(error);
  request.once('error', failed);
  request.pipe(lines);
  try {
    await pipeline(lines, whole, createWriteStream(file, { mode: 0o600 }), { signal });
  } finally {
    request.off('error', failed);
    request.unpipe(lines);
  }
  return size;
}

export async function openImportChannel(options: {
  dataDir: string;
  db: Database;
  logger: Pick<Logger, 'info' | 'warn'>;
  bounds: Config['imports'];
}): Promise<ImportChannel> {
  const spool = importSpoolPath(options.dataDir);
  // This server holds the data directory's lock: a spool left here is a killed server's, and was never imported.
  await rm(spool, { force: true });
  const path = importSocketPath(options.dataDir);
  if (path.length > MAX_SOCKET_PATH) {
    options.logger.warn(
      `live imports are off: the socket path ${path} is longer than ${MAX_SOCKET_PATH} bytes (use a shorter DATA_DIR)`,
    );
    return { path: null, close: async () => {} };
  }
  const bounds = {
    lines: {
      maxLineBytes: options.bounds.maxLineBytes + PLACE_BYTES,
      namedMaxBytes: options.bounds.maxLineBytes,
      where: 'the upload',
    },
    maxSpoolBytes: options.bounds.maxSpoolBytes,
  };
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
    const send = (event: ChannelEvent) => {
      if (!response.destroyed) response.write(`${JSON.stringify(event)}\n`);
    };
    // The tool gone before the answer's end: its import is abandoned (the transaction rolls back).
    response.on('close', () => {
      if (!response.writableFinished) aborted.abort(new Interrupted('parent exited'));
    });
    /** The answer's last line: the report, or why there is none. */
    let last: ChannelEvent | undefined;
    try {
      const size = await spoolUpload(request, spool, bounds, aborted.signal);
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      options.logger.info(`import of ${label}: taken from the import tool`);
      // The server reads only until an import comes (the writing client costs some 15 MB): from now on it writes.
      await options.db.enableWrites();
      let told = 0;
      const source = spooledSource(label, spool, size, { ...bounds.lines, signal: aborted.signal });
      const report = await importSource(options.db, source, {
        signal: aborted.signal,
        onPhase: (phase) => send({ phase }),
        onProgress: (progress) => {
          if (performance.now() - told < 1000) return;
          told = performance.now();
          send({ progress });
        },
      });
      options.logger.info(`import of ${label}: ${report.status} in ${report.seconds.toFixed(1)} s`);
      last = { report };
    } catch (error) {
      // Whatever the reading or the database said last, an abort is why it stopped.
      const interrupted = error instanceof Interrupted || aborted.signal.aborted;
      const why = interrupted
        ? closing
          ? STOPPING
          : TOOL_LEFT
        : error instanceof SourceError
          ? error.message
          : describeFailure(error);
      options.logger.warn(`import of ${label}: ${why}`);
      if (!response.headersSent) {
        response.writeHead(error instanceof SourceError ? 413 : 500, { 'content-type': 'application/x-ndjson' });
      }
      last = { error: why };
    } finally {
      // The spool goes and the channel is free before the tool hears the end: it sends its next source at once.
      await rm(spool, { force: true });
      running = null;
      if (last) send(last);
      // A refused upload may still be coming: its connection goes once the answer is out.
      if (!request.complete) response.once('finish', () => request.socket.destroy());
      response.end();
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
