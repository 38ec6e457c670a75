// The per-request GraphQL context: the store on the request's read session, DataLoaders over it (never shared
// between requests), and what the caller may see. `createContextFactory` makes it for yoga, for both doors.
import type { Scope } from '../api-keys.js';
import { type CacheNote, cacheNoteFor } from '../cache/response-cache.js';
import { newEntities, notingEntities } from '../cache/surrogate-keys.js';
import type { Consistency, ReadPath, ReadSession } from '../db/sql.js';
import type { Caller, ServerContext } from '../http/callers.js';
import { callersMatchSets, type MatchSets } from '../listing/matches.js';
import type { PackageRow } from '../listing/rows.js';
import { type PoolDraw, poolDraw } from '../listing/seed-pool.js';
import { createStore, type LastSeen, type Store } from '../listing/store.js';
import type { Logger } from '../logger.js';
import { graphqlSession } from './database-errors.js';
import type { ListingFeed } from './listing-feed.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Where an answer holds a photographer's prepared text (src/graphql/prepared-photographers.ts). */
export interface PreparedPlace {
  /** Its path in the answer's `data`. */
  path: (string | number)[];
  prepared: Required<Pick<PackageRow, 'photographerText' | 'photographerParts' | 'photographerHoles'>>;
  /** Whether the caller may read the private fields. */
  privateScope: boolean;
}

export interface Context {
  store: Store;
  loaders: Loaders;
  /** The request's read session (one snapshot); ended when the operation is done (see read-session.ts). */
  session: ReadSession;
  /** What the caller's API key unlocks (`private`: the personal fields); empty for anonymous callers. */
  scopes: ReadonlySet<Scope>;
  /** Private fields answered null because the caller lacks the scope; reported once (see private-fields.ts). */
  withheld: Set<string>;
  /** Where the answer holds photographers' prepared texts (see prepared-photographers.ts); a run made again starts afresh. */
  preparedPhotographers: PreparedPlace[];
  /** Whether the answer may be kept by the response cache (src/cache/): cleared when it depends on chance. */
  cacheNote: CacheNote;
  /** The request's draw from the pool of seeds, for an order asked without one (src/listing/seed-pool.ts). */
  seedDraw: PoolDraw | undefined;
  /** The database the session reads (`primary`, `replica 1`, ...; none for the embedded one), for traces. */
  database: string | undefined;
  /**
   * Starts the operation's reads over on a new session (src/graphql/read-session.ts): after the listing moved, in
   * one transaction; after the database failed (`lost`), on another one, never one that failed this request.
   * False when no database is left to try.
   */
  readAgain(why: { moved: boolean; lost: boolean }): boolean;
  /** The instance's listing changes, for `listingChanged` subscribers. */
  listingFeed: ListingFeed;
}

/** What a door passes when it runs an operation itself: the v2 door's legacy records carry every field. */
export interface DoorContext {
  scopes?: ReadonlySet<Scope>;
}

export interface ContextOptions {
  /** Where a request reads (a replica or the primary), and a database picked anew when its reads start over. */
  reads: {
    forRequest(request: object): RequestRead;
    /** A database other than those in `avoid`; undefined when none is left. */
    pick(avoid: ReadonlySet<object>): RequestRead | undefined;
  };
  matchSets: MatchSets;
  /** This process's last view of the listing, shared by every request's store. */
  lastSeen: LastSeen;
  callerOf: (request: Request, server?: ServerContext) => Caller;
  /** Milliseconds from the context's making after which no statement starts (REQUEST_TIMEOUT). */
  requestTimeoutMs: number;
  /** SEED_POOL: how many seeds a request without one draws from (0: none, a seed of its own). */
  seedPool: number;
  logger: Logger;
  listingFeed: ListingFeed;
  /** Whether answers may be kept (the response cache is on): only then are their packages noted, for purges. */
  keptAnswers: boolean;
}

const NO_SCOPES: ReadonlySet<Scope> = new Set();
type RequestRead = Pick<ReadPath, 'session' | 'role'>;

/** Yoga's `context` option: a new store, session and loaders per request. */
export function createContextFactory(options: ContextOptions) {
  return (initial: Record<string, unknown>): Context => {
    const door = initial as unknown as DoorContext & ServerContext & { request: Request };
    const caller = options.callerOf(door.request, door);
    const credential = caller.graphql;
    const matchSets = callersMatchSets(options.matchSets, caller.rateKey);
    const deadline = Date.now() + options.requestTimeoutMs;
    let read = options.reads.forRequest(door.request);
    let consistency: Consistency = 'versioned';
    /** The databases that failed this request: it is not sent to them again. */
    const failed = new Set<object>();
    const cacheNote = cacheNoteFor(door.request);
    const reads = () => {
      const session = graphqlSession(read.session(deadline, consistency), options.logger);
      // What the answer holds, for its surrogate keys where it may be kept; a run started over notes afresh.
      const plain = createStore(session, matchSets, options.lastSeen);
      let store = plain;
      if (options.keptAnswers) {
        const entities = newEntities();
        cacheNote.entities = entities;
        store = notingEntities(plain, () => entities);
      }
      return { session, store, loaders: createLoaders(store), database: read.role, preparedPhotographers: [] };
    };
    const context: Context = {
      ...reads(),
      scopes: door.scopes ?? (credential.kind === 'key' ? credential.key.scopes : NO_SCOPES),
      withheld: new Set<string>(),
      cacheNote,
      seedDraw: poolDraw(door.request, options.seedPool),
      listingFeed: options.listingFeed,
      // On `this`: Yoga copies this object's fields into the context resolvers see, which is what must change.
      readAgain(this: Context, { moved, lost }) {
        if (moved) consistency = 'transaction';
        if (lost) failed.add(read);
        const next = options.reads.pick(failed);
        if (!next) return false;
        read = next;
        Object.assign(this, reads());
        this.withheld.clear();
        return true;
      },
    };
    return context;
  };
}
