/**
 * What a model call downloads: the file and image URLs in its messages (from chat or any flow
 * input) that the provider cannot take as URLs, plus files a model answers with as URLs. The
 * `ai` SDK decides which URLs need downloading and what to do with the bytes; this module is
 * only its `experimental_download` hook, the fetching itself.
 *
 * The SDK's own download checks the host name as a string, so a name that resolves to a private
 * address, or a public URL that redirects to one, gets through, and it caps a file at 2 GiB. Here
 * every hop goes through the `http` step's guarded connection (`http-guard.ts`: the address is
 * checked where the socket connects, so DNS rebinding cannot slip past), redirects are followed
 * by hand so each one is checked, the body is read as a stream and cut at a size cap, and the
 * whole download has a time limit. A refusal is a NonRetryableError naming the host and why.
 */
import { NonRetryableError, WeftError } from '@weft/engine';
import type { Experimental_DownloadFunction as DownloadFunction } from 'ai';
import { fetch, type Response } from 'undici';
import { checkLiteralHost, dispatcherFor, PrivateAddressError } from './http-guard.ts';

export const DEFAULT_DOWNLOAD_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 30_000;
export const DOWNLOAD_MAX_BYTES_ENV = 'WEFT_DOWNLOAD_MAX_BYTES';
export const DOWNLOAD_TIMEOUT_ENV = 'WEFT_DOWNLOAD_TIMEOUT_MS';
const MAX_DOWNLOAD_REDIRECTS = 5;
// The fetch spec's redirect statuses; a 300 or 304 with a Location is an answer, not a hop.
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A download that failed in a way a retry may fix (network, HTTP 5xx or 429). */
export class ModelDownloadError extends WeftError {
  override readonly code = 'model_download';
}

/** How much and how long one model call may download. */
export interface DownloadLimits {
  /** Per file. */
  maxBytes: number;
  /** All files of one model call together: a message may carry many URLs, each within maxBytes. */
  maxTotalBytes: number;
  /** Per file, every redirect hop and the body included. */
  timeoutMs: number;
}

export interface DownloadOptions {
  /** Per file; default 5 MB (also WEFT_DOWNLOAD_MAX_BYTES). */
  maxBytes?: number;
  /** All files of one model call together; default four times maxBytes. */
  maxTotalBytes?: number;
  /** Per file; default 30 s (also WEFT_DOWNLOAD_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** Options first, then the environment, then the defaults; a bad value throws when the registry is made. */
export function resolveDownloadLimits(
  options: DownloadOptions | undefined,
  env: Record<string, string | undefined>,
): DownloadLimits {
  const maxBytes =
    checked('downloads.maxBytes', options?.maxBytes) ??
    fromEnv(env, DOWNLOAD_MAX_BYTES_ENV) ??
    DEFAULT_DOWNLOAD_MAX_BYTES;
  const timeoutMs =
    checked('downloads.timeoutMs', options?.timeoutMs) ??
    fromEnv(env, DOWNLOAD_TIMEOUT_ENV) ??
    DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const maxTotalBytes = checked('downloads.maxTotalBytes', options?.maxTotalBytes) ?? 4 * maxBytes;
  return { maxBytes, maxTotalBytes, timeoutMs };
}

function checked(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function fromEnv(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(raw.slice(0, 40))}`);
  }
  return value;
}

export interface ModelDownloadContext {
  limits: DownloadLimits;
  allowPrivateNetwork: boolean;
  /** The step's signal: cancelling the step stops its downloads. */
  signal: AbortSignal;
  /** Starts every error message, e.g. `model call to openai:gpt-4o`. */
  label: string;
}

/**
 * The `experimental_download` hook for one model call. Like the SDK's default, a URL the model
 * takes as is stays a URL (`null`) and every other one is downloaded; unlike it, through the guard.
 */
export function createModelDownload(context: ModelDownloadContext): DownloadFunction {
  return async (requests) => {
    // One failed download fails the call: the others stop too instead of running on unobserved.
    const siblings = new AbortController();
    const budget = { remaining: context.limits.maxTotalBytes };
    try {
      return await Promise.all(
        requests.map((request) =>
          request.isUrlSupportedByModel ? null : downloadOne(request.url, context, budget, siblings.signal),
        ),
      );
    } finally {
      siblings.abort();
    }
  };
}

type Budget = { remaining: number };

async function downloadOne(
  url: URL,
  context: ModelDownloadContext,
  budget: Budget,
  siblings: AbortSignal,
): Promise<{ data: Uint8Array; mediaType: string | undefined }> {
  const timeout = AbortSignal.timeout(context.limits.timeoutMs);
  const signal = AbortSignal.any([context.signal, siblings, timeout]);
  const dispatcher = dispatcherFor(context.allowPrivateNetwork);
  const refuse = (at: URL, why: string) =>
    new NonRetryableError(`${context.label} refused ${describe(url, at)}: ${why}`);
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:') {
        throw refuse(current, `only http: and https: URLs are downloaded, not ${current.protocol}`);
      }
      if (!context.allowPrivateNetwork) checkLiteralHost(current);
      const response = await fetch(current, { redirect: 'manual', signal, dispatcher });
      const location = response.headers.get('location');
      if (REDIRECT_STATUSES.has(response.status) && location) {
        await response.body?.cancel();
        if (hop >= MAX_DOWNLOAD_REDIRECTS) throw refuse(current, `more than ${MAX_DOWNLOAD_REDIRECTS} redirects`);
        const next = URL.canParse(location, current.href) ? new URL(location, current) : undefined;
        if (next === undefined) throw refuse(current, 'it redirected to an invalid URL');
        if (current.protocol === 'https:' && next.protocol === 'http:') {
          throw refuse(current, 'it redirected from https: to http:');
        }
        current = next;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        const text = `${context.label} could not download ${describe(url, current)}: HTTP ${response.status}`;
        // 4xx will not change on a retry; 5xx and 429 may.
        throw response.status >= 500 || response.status === 429
          ? new ModelDownloadError(text)
          : new NonRetryableError(text);
      }
      const data = await readCapped(response, context.limits, budget, (limit) =>
        refuse(
          current,
          limit === 'file'
            ? `it is larger than the ${formatSize(context.limits.maxBytes)} limit per file (downloads.maxBytes, ${DOWNLOAD_MAX_BYTES_ENV})`
            : `the files of this model call together are larger than the ${formatSize(context.limits.maxTotalBytes)} limit (downloads.maxTotalBytes)`,
        ),
      );
      return { data, mediaType: response.headers.get('content-type') ?? undefined };
    }
  } catch (error) {
    if (error instanceof WeftError) throw error;
    const refused = findCause(error, PrivateAddressError);
    if (refused) {
      throw refuse(
        current,
        `${refused.message}. Set WEFT_HTTP_ALLOW_PRIVATE=1 (or http.allowPrivateNetwork) to allow private network addresses`,
      );
    }
    if (timeout.aborted && !context.signal.aborted) {
      throw refuse(
        current,
        `it took longer than the ${context.limits.timeoutMs} ms limit (downloads.timeoutMs, ${DOWNLOAD_TIMEOUT_ENV})`,
      );
    }
    // The step's own abort: the model turn reports it (timed out / cancelled).
    if (context.signal.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
    // A network failure (refused, reset, DNS): worth a retry.
    throw new ModelDownloadError(`${context.label} could not download ${describe(url, current)}: ${detail}`, {
      cause: error,
    });
  }
}

/** The body, read chunk by chunk and cut as soon as it passes a limit: never buffered whole. */
async function readCapped(
  response: Response,
  limits: DownloadLimits,
  budget: Budget,
  tooLarge: (limit: 'file' | 'call') => Error,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && (declared > limits.maxBytes || declared > budget.remaining)) {
    await response.body?.cancel();
    throw tooLarge(declared > limits.maxBytes ? 'file' : 'call');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      budget.remaining -= value.byteLength;
      if (size > limits.maxBytes || budget.remaining < 0) {
        await reader.cancel();
        throw tooLarge(size > limits.maxBytes ? 'file' : 'call');
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks, size);
}

/** `error` or one of its causes that is a `type` (fetch wraps a connect failure in a TypeError). */
function findCause<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

/** Host and port only: a path or query may carry a signed token. Names the hop when a redirect led elsewhere. */
function describe(original: URL, at: URL): string {
  const what = `a file from ${original.host}`;
  return at.host === original.host ? what : `${what} (redirected to ${at.host})`;
}

function formatSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
