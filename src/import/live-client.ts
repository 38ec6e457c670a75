// The import tool's side of a live import (src/import/live-channel.ts): when a server runs on the embedded
// database, the tool reads each source itself (files, directories, URLs, as always), sends the records to the
// server over its socket, and prints the server's progress and report as if it had imported them itself.
import { existsSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import type { Config } from '../config.js';
import { describeFailure } from '../messages.js';
import type { ImportOptions, SourceReport } from './importer.js';
import { jsonLines } from './lines.js';
import { type ChannelEvent, IMPORT_PATH, importSocketPath } from './live-channel.js';
import { type Source, SourceError } from './source.js';

/** The socket of a server running on the configured embedded database, if one answers there. */
export async function runningServerSocket(config: Pick<Config, 'database'>): Promise<string | null> {
  if (config.database.kind !== 'pglite' || config.database.dataDir === 'memory://') return null;
  const path = importSocketPath(config.database.dataDir);
  if (!existsSync(path)) return null;
  // A socket file whose server is gone (killed without removing it) refuses: the tool then opens the database.
  return new Promise((resolve) => {
    const probe = request({ socketPath: path, method: 'GET', path: '/', agent: false }, (response) => {
      response.resume();
      resolve(path);
    });
    probe.on('error', () => resolve(null));
    probe.end();
  });
}

/** Resolves when the request takes more, or is gone. */
function drained(upload: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      upload.off('drain', done);
      upload.off('close', done);
      resolve();
    };
    upload.on('drain', done);
    upload.on('close', done);
  });
}

const emptyReport = (source: Source, error: string): SourceReport => ({
  label: source.label,
  status: 'failed',
  counts: { read: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 },
  shared: { created: 0, updated: 0 },
  rejections: [],
  error,
  seconds: 0,
});

/** Imports one source through the server at `socketPath`; resolves with the server's report. */
export function importThroughServer(
  socketPath: string,
  source: Source,
  options: Pick<ImportOptions, 'onProgress' | 'onPhase' | 'signal'> = {},
): Promise<SourceReport> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (report: SourceReport) => {
      if (!settled) resolve(report);
      settled = true;
    };
    const path = `${IMPORT_PATH}?label=${encodeURIComponent(source.label)}`;
    const upload = request({ socketPath, method: 'POST', path, agent: false }, (response) => {
      const read = async () => {
        for await (const line of jsonLines(response)) {
          if (line === '') continue;
          const event = JSON.parse(line) as ChannelEvent;
          if ('phase' in event) options.onPhase?.(event.phase);
          else if ('progress' in event) options.onProgress?.(event.progress);
          else if ('report' in event) settle(event.report);
          else settle(emptyReport(source, `the server: ${event.error}`));
        }
      };
      read()
        .catch(() => undefined)
        .finally(() => settle(emptyReport(source, 'the server ended the import without a report')));
    });
    upload.on('error', (error) => {
      if (!settled) settle(emptyReport(source, `the server could not be reached: ${describeFailure(error)}`));
    });
    // Interrupted: the connection goes, and the server rolls the import back.
    const interrupted = () => {
      upload.destroy();
      if (!settled) reject(options.signal?.reason);
      settled = true;
    };
    options.signal?.addEventListener('abort', interrupted, { once: true });

    (async () => {
      for await (const item of source.records()) {
        if (settled) return;
        if (!upload.write(`${JSON.stringify(item)}\n`)) await drained(upload);
      }
      upload.end();
    })().catch((error: unknown) => {
      // The source could not be read: nothing is sent on, nothing written (as when importing it here).
      upload.destroy();
      settle(emptyReport(source, error instanceof SourceError ? error.message : describeFailure(error)));
    });
  });
}
