// The per-request GraphQL context: the store on the request's read session, DataLoaders over it (never shared
// between requests), and what the caller may see. `createContextFactory` makes it for yoga, for both doors.
import type { Scope } from '../api-keys.js';
import { cacheNoteFor } from '../cache/response-cache.js';
import type { Consistency, ReadPath, ReadSession } from '../db/sql.js';
import type { Caller, ServerContext } from '../http/callers.js';
import type { MatchSets } from '../listing/matches.js';
import { createStore, type LastSeen, type Store } from '../listing/store.js';
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
  /**
   * Starts the operation's reads over on a new session, on a database picked anew (src/graphql/read-session.ts:
   * after the listing moved, or a replica failed).
   */
  readAgain(consistency: Consistency): void;
}

/** What a door passes when it runs an operation itself: the v2 door's legacy records carry every field. */
export interface DoorContext {
  scopes?: ReadonlySet<Scope>;
}

export interface ContextOptions {
  /** Where a request reads (a replica or the primary), and a database picked anew when its reads start over. */
  reads: { forRequest(request: object): Pick<ReadPath, 'session'>; pick(): Pick<ReadPath, 'session'> };
  matchSets: MatchSets;
  /** This process's last view of the listing, shared by every request's store. */
  lastSeen: LastSeen;
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
    const deadline = Date.now() + options.requestTimeoutMs;
    const reads = (consistency: Consistency, again = false) => {
      const read = again ? options.reads.pick() : options.reads.forRequest(door.request);
      const session = graphqlSession(read.session(deadline, consistency), options.logger);
      const store = createStore(session, options.matchSets, options.lastSeen);
      return { session, store, loaders: createLoaders(store) };
    };
    const context: Context = {
      ...reads('versioned'),
      scopes: door.scopes ?? (credential.kind === 'key' ? credential.key.scopes : NO_SCOPES),
      withheld: new Set<string>(),
      cacheNote: cacheNoteFor(door.request),
      // On `this`: Yoga copies this object's fields into the context resolvers see, which is what must change.
      readAgain(this: Context, consistency: Consistency) {
        Object.assign(this, reads(consistency, true));
        this.withheld.clear();
      },
    };
    return context;
  };
}
