// Persisted operations: a client sends the hash of an operation from a manifest instead of its text
// (`extensions: {"persistedQuery": {"version": 1, "sha256Hash": "..."}}`), so a GET URL stays short and a CDN
// can cache it. The manifest is the JSON object GraphQL Code Generator's client preset writes with
// `persistedDocuments: true` (hash -> document; keys "sha256:<hex>" or plain hex). With PERSISTED_OPERATIONS_ONLY
// the server runs nothing else. Persisted documents pass the same limits as any other.
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';

export interface PersistedOperationSettings {
  /** Path of the manifest; unset: no persisted operations. */
  file?: string;
  /** Refuse operations sent as text. */
  only: boolean;
}

/** The manifest as hash (hex, no prefix) -> document; throws with a one-line reason when it is unusable. */
export function readManifest(file: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`PERSISTED_OPERATIONS ${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`PERSISTED_OPERATIONS ${file}: must be a JSON object of hash -> document`);
  }
  const manifest = new Map<string, string>();
  for (const [key, document] of Object.entries(value)) {
    if (typeof document !== 'string') throw new Error(`PERSISTED_OPERATIONS ${file}: ${key} is not a document`);
    manifest.set(key.replace(/^sha256:/, ''), document);
  }
  return manifest;
}

/** `manifest`: the file as already read (the same one automatic persisted queries look hashes up in). */
export function persistedOperations(
  { file, only }: PersistedOperationSettings,
  manifest = file ? readManifest(file) : undefined,
): Plugin[] {
  if (!manifest) return [];
  return [
    usePersistedOperations({
      getPersistedOperation: (hash) => manifest.get(hash.replace(/^sha256:/, '')) ?? null,
      allowArbitraryOperations: !only,
      customErrors: {
        notFound: {
          message: 'No persisted operation has this hash: send one from the manifest, or the query itself.',
          extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } },
        },
        keyNotFound: {
          message: 'Send a query, or extensions.persistedQuery.sha256Hash of a persisted operation.',
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        },
        persistedQueryOnly: {
          message: 'This server runs persisted operations only: send extensions.persistedQuery.sha256Hash.',
          extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 400 } },
        },
      },
    }) as Plugin,
  ];
}
