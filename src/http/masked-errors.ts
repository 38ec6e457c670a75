// A plugin's onRequest or onResponse that throws is answered as yoga masks an execution's error: a 500 saying
// "Unexpected error." in the route's shape, the error itself only in the log. Left alone, the server adapter under
// yoga (@whatwg-node/server) answers it with the error's stack as the body, to anyone.
import type { Plugin } from 'graphql-yoga';
import { type Refusal, refusalResponse } from './refusals.js';

/** The answer to a request whose handling threw, at either door (src/http/edge.ts writes the same). */
export const UNEXPECTED: Refusal = { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Unexpected error.' };

type OnRequest = NonNullable<Plugin['onRequest']>;
type OnResponse = NonNullable<Plugin['onResponse']>;

/** Calls `hook`, giving a throw or a rejection to `fault`; a hook that returns at once costs no promise. */
function caught(hook: () => unknown, fault: (error: unknown) => void): unknown {
  try {
    const result = hook();
    return result instanceof Promise ? result.catch(fault) : result;
  } catch (error) {
    return fault(error);
  }
}

/** The plugin with its onRequest and onResponse hooks' errors answered UNEXPECTED and told to `report`. */
export function maskHookErrors<P extends object>(plugin: P, report: (error: unknown) => void): P {
  const { onRequest, onResponse } = plugin as Pick<Plugin, 'onRequest' | 'onResponse'>;
  if (!onRequest && !onResponse) return plugin;
  const masked: Pick<Plugin, 'onRequest' | 'onResponse'> = {};
  if (onRequest) {
    masked.onRequest = (payload: Parameters<OnRequest>[0]) =>
      caught(
        () => onRequest(payload),
        (error) => {
          report(error);
          const { fetchAPI, request, url, endResponse } = payload;
          endResponse(refusalResponse(fetchAPI.Response, request, url.pathname, UNEXPECTED));
        },
      ) as ReturnType<OnRequest>;
  }
  if (onResponse) {
    masked.onResponse = (payload: Parameters<OnResponse>[0]) =>
      caught(
        () => onResponse(payload),
        (error) => {
          report(error);
          const { fetchAPI, request, setResponse } = payload;
          setResponse(refusalResponse(fetchAPI.Response, request, new URL(request.url).pathname, UNEXPECTED));
        },
      ) as ReturnType<OnResponse>;
  }
  return { ...plugin, ...masked };
}
