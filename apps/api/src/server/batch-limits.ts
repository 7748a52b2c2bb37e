/**
 * Limits on one tRPC batch (`/trpc/a,b,c?batch=1`, as the editor's httpBatchLink sends them):
 * how many calls it may hold (WEFT_MAX_BATCH_CALLS, default 100) and how many bytes its answer
 * may be (WEFT_MAX_BATCH_BYTES, default 16 MiB). Over either, the whole batch is answered with a
 * 4xx whose message names the limit and its variable, instead of a response of hundreds of MB
 * (four `runs.get` of large runs came to 302 MB before runs.get was paged).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatBytes, type SizeLimit, sizeLimit } from '@weft/adapters/store';

export const BATCH_CALLS_LIMIT: SizeLimit = { what: 'calls per batch', env: 'WEFT_MAX_BATCH_CALLS', defaultBytes: 100 };
export const BATCH_BYTES_LIMIT: SizeLimit = {
  what: 'batch response',
  env: 'WEFT_MAX_BATCH_BYTES',
  defaultBytes: 16 * 1024 * 1024,
};

export interface BatchLimits {
  calls: number;
  bytes: number;
}

/** From the environment; an invalid value throws naming the variable (at server start). */
export function batchLimits(env: Record<string, string | undefined> = process.env): BatchLimits {
  return { calls: sizeLimit(BATCH_CALLS_LIMIT, env), bytes: sizeLimit(BATCH_BYTES_LIMIT, env) };
}

type Refuse = (status: number, code: string, message: string) => void;

/**
 * Checks a request to tRPC against the batch limits. Returns false when it refused it (too many
 * calls); otherwise, for a batch, holds its answer back until it is complete and sends it only
 * if it is within the byte limit (a 413 naming the limit otherwise).
 */
export function limitBatch(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  limits: BatchLimits,
  refuse: Refuse,
): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.searchParams.get('batch') !== '1') return true;
  const calls = path.slice('/trpc/'.length).split(',').length;
  if (calls > limits.calls) {
    refuse(
      400,
      'BAD_REQUEST',
      `a tRPC batch of ${calls} calls is over the limit of ${limits.calls} ${BATCH_CALLS_LIMIT.what} (${BATCH_CALLS_LIMIT.env})`,
    );
    return false;
  }
  holdUntilComplete(res, limits.bytes, refuse);
  return true;
}

/**
 * A batch's answer is one JSON document (httpBatchLink, not streamed), so it can be held until
 * it ends: within `maxBytes` it is sent as written, past it the chunks are dropped as they come
 * and a 413 goes out instead.
 */
function holdUntilComplete(res: ServerResponse, maxBytes: number, refuse: Refuse): void {
  const write = res.write.bind(res) as (chunk: unknown) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  const chunks: Buffer[] = [];
  let size = 0;
  const hold = (chunk: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size <= maxBytes) chunks.push(buffer);
    else chunks.length = 0;
  };
  res.write = ((chunk: unknown) => {
    hold(chunk);
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown) => {
    hold(chunk);
    res.write = write as typeof res.write;
    res.end = end as typeof res.end;
    if (size > maxBytes) {
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      refuse(
        413,
        'PAYLOAD_TOO_LARGE',
        `the answer to this tRPC batch is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} ${BATCH_BYTES_LIMIT.what} limit (${BATCH_BYTES_LIMIT.env}); ask for fewer calls at once`,
      );
      return res;
    }
    if (chunks.length > 0 && !res.headersSent) res.setHeader('content-length', size);
    for (const buffer of chunks) write(buffer);
    return end();
  }) as typeof res.end;
}
