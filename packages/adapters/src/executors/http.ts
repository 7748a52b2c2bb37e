/**
 * The `http` call. A flow author controls the URL, so by default the request may only reach
 * public addresses: every address the host name resolves to is checked where the socket
 * connects, so the address checked is the address used (see `http-guard.ts`), and redirects
 * are followed by hand so each hop is checked too. A cross-origin hop drops every credential
 * header. Errors name the method, host and path, never a header value, userinfo or query.
 * Non-2xx responses are results (the flow decides); network failures are retryable errors.
 * Every request carries an `Idempotency-Key` derived from the run and the checkpoint (see
 * `idempotency.ts`) unless the step opts out or sets the header itself.
 *
 * Requests go through the `undici` package's own `fetch` with its own Agent: Node's global
 * fetch is undici too, but pairing it with an Agent from a different undici copy is not a
 * supported combination, while one package's fetch and Agent are made to work together.
 */
import {
  type HttpCallInput,
  type HttpCallOutput,
  isCredentialHeader,
  type Json,
  NonRetryableError,
  WeftError,
} from '@weft/engine';
import { fetch, Headers, type Response } from 'undici';
import { checkLiteralHost, dispatcherFor, PrivateAddressError } from './http-guard.ts';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKey, idempotencyKeyHeaderValue } from './idempotency.ts';
import type { ExecutorContext, ExecutorDeps } from './types.ts';

export { isPrivateAddress } from './http-guard.ts';

export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/** A network-level failure (DNS, refused, reset, timeout): worth retrying. */
export class HttpRequestError extends WeftError {
  override readonly code = 'http_request';
}

export async function executeHttp(input: HttpCallInput, ctx: ExecutorContext, deps: ExecutorDeps): Promise<Json> {
  let method = (input.method || 'GET').toUpperCase();
  let url = parseUrl(input.url);
  const headers = buildHeaders(input.headers);
  // The author's own header wins: a receiver may want keys of its own making.
  if (input.idempotencyKey !== false && !headers.has(IDEMPOTENCY_KEY_HEADER)) {
    headers.set(IDEMPOTENCY_KEY_HEADER, idempotencyKeyHeaderValue(idempotencyKey(ctx)));
  }
  let body: string | undefined;
  if (input.body !== undefined && input.body !== null) {
    if (method === 'GET' || method === 'HEAD') throw new NonRetryableError(`http ${method} request cannot have a body`);
    body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    if (typeof input.body !== 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const allowPrivate = deps.http.allowPrivateNetwork || deps.env.WEFT_HTTP_ALLOW_PRIVATE === '1';
  const dispatcher = dispatcherFor(allowPrivate);

  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      if (!allowPrivate) checkLiteralHost(url);
      response = await fetch(url, { method, headers, body, signal: ctx.signal, redirect: 'manual', dispatcher });
    } catch (error) {
      throw networkError(error, method, url, ctx.signal);
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      return readResponse(response, method, url, ctx.signal, deps.http.maxResponseBytes);
    }
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new NonRetryableError(`http ${method} ${describe(url)}: too many redirects`);
    const next = parseUrl(location, url);
    if (next.origin !== url.origin) {
      // Credentials meant for one origin are not forwarded to another: fetch drops only
      // authorization and cookie, but an API key in a custom header is just as much a credential.
      for (const name of [...headers.keys()]) if (isCredentialHeader(name)) headers.delete(name);
    }
    url = next;
    // Like browsers: a 303, and a 301/302 after a POST, continue as a GET without a body.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      if (method !== 'HEAD') method = 'GET';
      body = undefined;
      headers.delete('content-type');
    }
  }
}

function parseUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    const shown = JSON.stringify(withoutSecrets(String(raw)).slice(0, 200));
    throw new NonRetryableError(
      base
        ? `http ${describe(base)} redirected to an invalid URL: ${shown}`
        : `http url is not a valid absolute URL: ${shown}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NonRetryableError(`http url must use http: or https:, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    // fetch refuses these too, but with a message that quotes the whole URL, password included.
    throw new NonRetryableError(
      `http url ${describe(url)} must not carry credentials (user:password@): send them in an authorization header`,
    );
  }
  return url;
}

/** A URL that did not parse, without its likely userinfo, query and fragment. */
function withoutSecrets(raw: string): string {
  return raw.replace(/[?#][\s\S]*$/, '').replace(/\/\/[^/]*@/, '//');
}

function buildHeaders(raw: Record<string, string> | undefined): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw ?? {})) {
    try {
      headers.append(name, value);
    } catch {
      // Headers' own message quotes the value, which may be a credential: name the header only.
      throw new NonRetryableError(
        `http header ${JSON.stringify(name.slice(0, 100))} is invalid: a name must be a token, a value must not hold line breaks or NUL`,
      );
    }
  }
  return headers;
}

async function readResponse(
  response: Response,
  method: string,
  url: URL,
  signal: AbortSignal,
  maxBytes: number,
): Promise<Json> {
  const tooLarge = () =>
    new NonRetryableError(`http ${method} ${describe(url)}: response is larger than the ${formatSize(maxBytes)} limit`);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel();
          throw tooLarge();
        }
        chunks.push(value);
      }
    } catch (error) {
      if (error instanceof NonRetryableError) throw error;
      throw networkError(error, method, url, signal);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  const headers = Object.fromEntries(response.headers);
  const output: HttpCallOutput = { status: response.status, headers, body: text };
  if (/\bjson\b|\+json\b/i.test(response.headers.get('content-type') ?? '') && text.trim() !== '') {
    try {
      output.body = JSON.parse(text) as Json;
    } catch {
      // A server that says JSON but sends something else: hand the flow the raw text.
    }
  }
  return output as unknown as Json;
}

function networkError(error: unknown, method: string, url: URL, signal: AbortSignal): Error {
  const refused = findCause(error, PrivateAddressError);
  if (refused) {
    return new NonRetryableError(
      `http request to ${describe(url)} refused: ${refused.message}. ` +
        'Set WEFT_HTTP_ALLOW_PRIVATE=1 (or http.allowPrivateNetwork) to allow private network addresses.',
      { cause: error },
    );
  }
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    const what = reason?.name === 'TimeoutError' ? 'timed out' : 'was aborted';
    return new HttpRequestError(`http ${method} ${describe(url)} ${what}`, { cause: error });
  }
  const cause = (error as { cause?: { message?: string; code?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
  return new HttpRequestError(`http ${method} ${describe(url)} failed: ${detail}`, { cause: error });
}

/** `error` or one of its causes that is a `type` (fetch wraps a connect failure in a TypeError). */
function findCause<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

/** The URL without credentials or query string, which may hold secrets. */
function describe(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function formatSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
