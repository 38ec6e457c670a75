// The per-request GraphQL context: the store on the request's read session, DataLoaders over it (never shared
// between requests), and what the caller may see.
import type { ReadSession } from '../db/sql.js';
import type { Scope } from '../api-keys.js';
import type { Store } from '../listing/store.js';
import type { Loaders } from './loaders.js';

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
