// Accept-Encoding negotiated compression (br, gzip) of JSON and HTML answers: the v2 page of 50 is ~440 kB of
// JSON and compresses about tenfold. The decoded bytes are exactly the uncompressed answer (the v2 contract's
// byte checks hold through it). Written here rather than @whatwg-node/server's useContentEncoding, which ignores
// q-values (`br;q=0` would get br), adds no `Vary`, compresses 20-byte answers, and also inflates request bodies
// after the body-size check (a small gzip body could expand without bound).
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import type { RequestHead } from './request-head.js';

export type Encoding = 'br' | 'gzip';

/** Answers smaller than this go as they are: compressing them saves less than it costs. */
const MIN_BYTES = 1024;
const COMPRESSIBLE = /^(application\/(?:[\w.+-]+\+)?json|text\/html)\b/;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The encoding to answer with, from Accept-Encoding (q-values honoured; br preferred on a tie); null: none. */
export function chooseEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (encoding: Encoding) => weights.get(encoding) ?? weights.get('*') ?? 0;
  const best = (['br', 'gzip'] as const).reduce<Encoding | null>(
    (chosen, encoding) => (weight(encoding) > (chosen ? weight(chosen) : 0) ? encoding : chosen),
    null,
  );
  return best;
}

/** Whether an answer varies by Accept-Encoding (said in its Vary): every compressible answer that has a body. */
export const variesByEncoding = (contentType: string, status: number): boolean =>
  COMPRESSIBLE.test(contentType) && status !== 204 && status !== 304;

/**
 * The encoding an answer of this type and size goes out in for this request: none for HEAD (no body to encode),
 * for types that do not compress, and for answers under MIN_BYTES.
 */
export function encodingFor(request: RequestHead, contentType: string | null, byteLength: number): Encoding | null {
  if (request.method === 'HEAD' || !COMPRESSIBLE.test(contentType ?? '') || byteLength < MIN_BYTES) return null;
  return chooseEncoding(request.headers.get('accept-encoding'));
}

/** The bytes compressed (brotli at a quality meant for answers made per request, not for static files). */
export function compress(bytes: Uint8Array, encoding: Encoding): Promise<Uint8Array> {
  if (encoding === 'gzip') return gzipAsync(bytes, { level: 6 });
  return brotli(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

/** A Vary header list with `value` appended unless it is there already. */
export function varyWith(vary: string | null | undefined, value: string): string {
  if (!vary) return value;
  return lists(vary, value) ? vary : `${vary}, ${value}`;
}

const lists = (vary: string, value: string) =>
  vary.split(',').some((v) => v.trim().toLowerCase() === value.toLowerCase());

/** A Vary header list with `value` first unless it is there already (as CORS, the first to add one, puts Origin). */
export function varyFirst(vary: string | null | undefined, value: string): string {
  if (!vary) return value;
  return lists(vary, value) ? vary : `${value}, ${vary}`;
}

/** A Vary header list without `value`; undefined when nothing is left. */
export function varyWithout(vary: string | undefined, value: string): string | undefined {
  const kept = vary
    ?.split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '' && v.toLowerCase() !== value.toLowerCase());
  return kept && kept.length > 0 ? kept.join(', ') : undefined;
}

/** Appends `value` to a Vary header list unless it is there already. */
export function addVary(headers: Headers, value: string): void {
  const vary = headers.get('vary');
  const added = varyWith(vary, value);
  if (added !== vary) headers.set('vary', added);
}

/**
 * An answer's body as compressResponses sends it: in the coding the request admits where that is worth it, and
 * whether its headers say `Vary: Accept-Encoding` (every compressible answer that has a body).
 */
export async function compressedAnswer(
  request: RequestHead,
  contentType: string,
  status: number,
  body: Uint8Array,
): Promise<{ vary: boolean; encoding: Encoding | null; body: Uint8Array }> {
  if (!variesByEncoding(contentType, status)) return { vary: false, encoding: null, body };
  const encoding = encodingFor(request, contentType, body.byteLength);
  return { vary: true, encoding, body: encoding ? await compress(body, encoding) : body };
}

export function compressResponses(): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const type = response.headers.get('content-type') ?? '';
      if (!variesByEncoding(type, response.status) || response.headers.has('content-encoding')) return;
      // HEAD answers as GET would, headers included, without compressing a body it does not send.
      if (!chooseEncoding(request.headers.get('accept-encoding')) || request.method === 'HEAD' || !response.body) {
        return addVary(response.headers, 'Accept-Encoding');
      }
      const headers = new fetchAPI.Headers(response.headers);
      addVary(headers, 'Accept-Encoding');
      const plain = new Uint8Array(await response.arrayBuffer());
      const { encoding, body } = await compressedAnswer(request, type, response.status, plain);
      if (encoding) {
        headers.set('content-encoding', encoding);
        headers.set('content-length', String(body.byteLength));
      }
      setResponse(
        new fetchAPI.Response(body as BodyInit, {
          status: response.status,
          statusText: response.statusText,
          headers,
        }),
      );
    },
  };
}
