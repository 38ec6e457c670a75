// The per-request GraphQL context: the store on the request's read session, DataLoaders over it (never shared
// between requests), and what the caller may see. `createContextFactory` makes it for yoga, for both doors.
import type { Scope } from '../api-keys.js';
import { cacheNoteFor } from '../cache/response-cache.js';
import type { ReadPath, ReadSession } from '../db/sql.js';
import type { Caller, ServerContext } from '../http/callers.js';
import type { MatchSets } from '../listing/matches.js';
import { createStore, type Store } from '../listing/store.js';
import type { Logger } from '../logger.js';
import { graphqlSession } from './database-errors.js';
import { createLoaders, type Loaders } from './loaders.js';

export interface Context {
  store: Store;
  loaders: Loaders;
  /** The request's read session (one snapshot); ended when the operation is done (see read-session.ts). */
  session: ReadSession;
  /** What the caller's API key unlocks (`private`: the personal fields); empty for anonymous callers. */
  scopes: ReadonlySet<Scope>;
  /** Private fields answered null because the caller lacks the scope; reported once (see private-fields.ts). */
  withheld: Set<string>;
  /** Whether the answer may be kept by the response cache (src/cache/): cleared when it depends on chance. */
  cacheNote: { cacheable: boolean };
}

/** What a door passes when it runs an operation itself: the v2 door's legacy records carry every field. */
export interface DoorContext {
  scopes?: ReadonlySet<Scope>;
}

export interface ContextOptions {
  read: Pick<ReadPath, 'session'>;
  matchSets: MatchSets;
  callerOf: (request: Request, server?: ServerContext) => Caller;
  /** Milliseconds from the context's making after which no statement starts (REQUEST_TIMEOUT). */
  requestTimeoutMs: number;
  logger: Logger;
}

const NO_SCOPES: ReadonlySet<Scope> = new Set();

/** Yoga's `context` option: a new store, session and loaders per request. */
export function createContextFactory(options: ContextOptions) {
  return (initial: Record<string, unknown>): Context => {
    const door = initial as unknown as DoorContext & ServerContext & { request: Request };
    const credential = options.callerOf(door.request, door).graphql;
    const session = graphqlSession(options.read.session(Date.now() + options.requestTimeoutMs), options.logger);
    const store = createStore(session, options.matchSets);
    return {
      store,
      loaders: createLoaders(store),
      session,
      scopes: door.scopes ?? (credential.kind === 'key' ? credential.key.scopes : NO_SCOPES),
      withheld: new Set<string>(),
      cacheNote: cacheNoteFor(door.request),
    };
  };
}
