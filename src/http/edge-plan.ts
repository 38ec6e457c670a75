// Which requests the Node edge may answer, decided from the app's plugin list. The edge (src/cache/edge-hits.ts,
// src/graphql/edge-operations.ts) answers before yoga's HTTP layer, so a plugin's request-level hooks (onRequest,
// onRequestParse, onParams, onResultProcess, onResponse) never run there: each must be honoured another way, by
// the edge calling the function the hook calls, or by the edge stepping aside for the requests the hook decides.
// Execution hooks (onParse, onValidate, onContextBuilding, onExecute, onSubscribe) run at the edge too: it
// executes through yoga's envelop.
//
// So the app lists, beside each plugin, how the edge honours each of its request-level hooks. A plugin with such
// a hook that its entry does not name (a new plugin, or a hook added to an old one) turns the edge off for the
// routes that plugin can touch, and says so once at start: the request then goes through yoga and the plugin
// decides, as the rule is. The edge can be slower than it should be; it cannot answer otherwise.
import type { Plugin } from 'graphql-yoga';
import { GRAPHQL_PATH, LISTING_PATH } from './routes.js';

export const REQUEST_HOOKS = ['onRequest', 'onRequestParse', 'onParams', 'onResultProcess', 'onResponse'] as const;

/** The routes the edge answers on. */
export const EDGE_ROUTES: readonly string[] = [GRAPHQL_PATH, LISTING_PATH];

/** Hooks that must be named too: onPluginInit can add plugins, whose hooks this list would not see. */
const CHECKED_HOOKS = [...REQUEST_HOOKS, 'onPluginInit'] as const;
type CheckedHook = (typeof CHECKED_HOOKS)[number];

/** How the edge honours a plugin's request-level hooks, a few words each, and the routes the plugin touches. */
interface Honoured {
  hooks: Partial<Record<CheckedHook, string>>;
  /** By default every route the edge answers on. */
  routes?: readonly string[];
}

const SAME_RECORDER = 'the edge records its answers with the same recorder (requestRecorder)';

/**
 * The table: for each of the app's plugins (by the name src/app.ts gives it), how the edge honours each of its
 * request-level hooks. A plugin without hooks of that kind needs no row.
 */
const HONOURED: Readonly<Record<string, Honoured>> = {
  'request log': { hooks: { onRequest: SAME_RECORDER, onParams: SAME_RECORDER, onResponse: SAME_RECORDER } },
  metrics: { hooks: { onRequest: 'answers /metrics only' }, routes: [] },
  health: { hooks: { onRequest: 'answers /healthz, /readyz and /livez only' }, routes: [] },
  GraphiQL: { hooks: { onRequest: "the edge leaves a browser's GET /graphql to the app (asksForGraphiql)" } },
  CORS: {
    hooks: {
      onRequest: 'the edge takes no preflight (OPTIONS)',
      onResponse: "the edge adds the same policy's headers (answerHeaders, varyOrigin)",
    },
  },
  'rate limit': {
    hooks: { onRequest: "the edge counts the same budget once (countAtTheEdge); a refusal is the app's" },
  },
  'API keys': { hooks: { onRequest: 'the edge leaves a key that is not ours, and any key on v2, to the app' } },
  CSRF: { hooks: { onRequest: 'the edge takes only a POST whose type passes the same test (postIsJson)' } },
  'cache headers': {
    hooks: { onResponse: "the edge adds the same Vary (varyFor) and Cache-Control (NOT_SHARED, or the kept answer's)" },
  },
  'response cache': {
    hooks: {
      onRequest: 'the edge looks kept answers up and sends them with the same functions (pendingFor, representation)',
      onResponse: 'the edge keeps its answers with the same function (keep)',
    },
  },
  compression: { hooks: { onResponse: 'the edge compresses with the same function (compressedAnswer)' } },
  'v2 door': { hooks: { onRequest: 'the edge sends kept v2 answers only, never makes one' }, routes: [LISTING_PATH] },
  'well-formed parameters': {
    hooks: { onRequestParse: 'the edge leaves parameters that are not plain JSON to the app (getParams, postParams)' },
    routes: [GRAPHQL_PATH],
  },
  APQ: { hooks: { onParams: 'the edge leaves a request with extensions to the app' }, routes: [GRAPHQL_PATH] },
  'persisted operations': {
    hooks: { onParams: 'the edge leaves a request with extensions to the app; with only those, every query' },
    routes: [GRAPHQL_PATH],
  },
  'operation limits': { hooks: { onResultProcess: 'the edge applies the same function (withClientErrors)' } },
  'database faults': { hooks: { onResultProcess: 'the edge applies the same function (withOneUnavailable)' } },
  'event streams': { hooks: { onResultProcess: 'the edge leaves a result that is a stream to the app' } },
};

/** One plugin of the app's list, named for the table (a name the table lacks is honoured for no hook). */
export interface PlannedPlugin<P extends object = Plugin> {
  name: string;
  plugin: P;
}

export interface EdgePlan<P extends object = Plugin> {
  /** The plugins, in their order, for yoga. */
  plugins: P[];
  /** Whether the edge may answer on the route (no plugin touching it has a hook the edge does not honour). */
  answersOn(path: string): boolean;
  /** Each plugin hook the edge does not honour, as `name: hook`; empty when the edge answers everywhere. */
  unhonoured: string[];
}

/** The request-level hooks a plugin has (onPluginInit included). */
export const requestHooksOf = (plugin: object): CheckedHook[] =>
  CHECKED_HOOKS.filter((hook) => typeof (plugin as Record<string, unknown>)[hook] === 'function');

/** The plan of `entries` (a plugin given bare has no entry: any request-level hook of it turns the edge off). */
export function planEdge<P extends object>(entries: readonly (PlannedPlugin<P> | P)[]): EdgePlan<P> {
  const off = new Set<string>();
  const unhonoured: string[] = [];
  const plugins: P[] = [];
  entries.forEach((entry, index) => {
    const planned: PlannedPlugin<P> =
      'plugin' in entry && 'name' in entry
        ? (entry as PlannedPlugin<P>)
        : { name: `plugin ${index + 1}`, plugin: entry as P };
    plugins.push(planned.plugin);
    const honoured = HONOURED[planned.name];
    const hooks = requestHooksOf(planned.plugin).filter((hook) => !honoured?.hooks[hook]);
    if (hooks.length === 0) return;
    unhonoured.push(`${planned.name}: ${hooks.join(', ')}`);
    for (const route of honoured?.routes ?? EDGE_ROUTES) off.add(route);
  });
  return { plugins, answersOn: (path) => !off.has(path), unhonoured };
}
