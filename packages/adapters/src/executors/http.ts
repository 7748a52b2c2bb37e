/**
 * The `http` call. A flow author controls the URL, so by default the request may only reach
 * public addresses: every address the host name resolves to is checked (IPv4 and IPv6,
 * including IPv4-mapped IPv6), and redirects are followed by hand so each hop is checked too.
 * Non-2xx responses are results (the flow decides); network failures are retryable errors.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { type HttpCallInput, type HttpCallOutput, type Json, NonRetryableError, WeftError } from '@weft/engine';
import type { ExecutorContext, ExecutorDeps } from './types.ts';

export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;

/** A network-level failure (DNS, refused, reset, timeout): worth retrying. */
export class HttpRequestError extends WeftError {
  override readonly code = 'http_request';
}

const privateRanges = new BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  privateRanges.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address that may be private
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  privateRanges.addSubnet(prefix, bits, 'ipv6');
}

/** True for loopback, private, link-local and other non-public addresses. ::ffff:a.b.c.d is checked as IPv4. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return privateRanges.check(address, 'ipv4');
  if (family === 6) return privateRanges.check(address, 'ipv6');
  return true; // not an address at all: refuse rather than guess
}

export async function executeHttp(input: HttpCallInput, ctx: ExecutorContext, deps: ExecutorDeps): Promise<Json> {
  let method = (input.method || 'GET').toUpperCase();
  let url = parseUrl(input.url);
  const headers = buildHeaders(input.headers);
  let body: string | undefined;
  if (input.body !== undefined && input.body !== null) {
    if (method === 'GET' || method === 'HEAD') throw new NonRetryableError(`http ${method} request cannot have a body`);
    body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    if (typeof input.body !== 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const allowPrivate = deps.http.allowPrivateNetwork || deps.env.WEFT_HTTP_ALLOW_PRIVATE === '1';

  for (let hop = 0; ; hop++) {
    if (!allowPrivate) await assertPublic(url, method, ctx.signal);
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, signal: ctx.signal, redirect: 'manual' });
    } catch (error) {
      throw networkError(error, method, url, ctx.signal);
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      return readResponse(response, method, url, ctx.signal, deps.http.maxResponseBytes);
    }
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new NonRetryableError(`http ${method} ${describe(url)}: too many redirects`);
    const next = parseUrl(new URL(location, url).href);
    if (next.origin !== url.origin) {
      // Like fetch: credentials meant for one origin are not forwarded to another.
      headers.delete('authorization');
      headers.delete('cookie');
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

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NonRetryableError(`http url is not a valid absolute URL: ${JSON.stringify(String(raw).slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NonRetryableError(`http url must use http: or https:, not ${url.protocol}`);
  }
  return url;
}

function buildHeaders(raw: Record<string, string> | undefined): Headers {
  try {
    return new Headers(raw ?? {});
  } catch (error) {
    throw new NonRetryableError(`http headers are invalid: ${(error as Error).message}`);
  }
}

async function assertPublic(url: URL, method: string, signal: AbortSignal): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch (error) {
      throw networkError(error, method, url, signal);
    }
  }
  const refused = addresses.find(isPrivateAddress);
  if (refused !== undefined) {
    throw new NonRetryableError(
      `http request to ${describe(url)} refused: ${host} resolves to ${refused}, a loopback/private/link-local address. ` +
        'Set WEFT_HTTP_ALLOW_PRIVATE=1 (or http.allowPrivateNetwork) to allow private network addresses.',
    );
  }
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
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    const what = reason?.name === 'TimeoutError' ? 'timed out' : 'was aborted';
    return new HttpRequestError(`http ${method} ${describe(url)} ${what}`, { cause: error });
  }
  const cause = (error as { cause?: { message?: string; code?: string } }).cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
  return new HttpRequestError(`http ${method} ${describe(url)} failed: ${detail}`, { cause: error });
}

/** The URL without credentials or query string, which may hold secrets. */
function describe(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function formatSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
