/**
 * Idempotency keys for side effects. Every backend runs a checkpointed call at least once: a
 * crash after the request went out but before its result was journaled runs it again. The key
 * lets the receiver turn that into exactly once: it is derived from Weft's run id and the call's
 * checkpoint (its full step path, `agent/tools/lookup#2`, `each[3]/post`), so every attempt of one
 * call, in any process and on any backend, carries the same key, and no two calls share one.
 * A child run has its own run id, and a replay is a new run: both get new keys.
 *
 * The key is a hash, so a header never shows a step path (which may name what the flow does)
 * and always has the same length.
 */
import { createHash } from 'node:crypto';

/** The header of the IETF draft "The Idempotency-Key HTTP Header Field". */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** SHA-256 of the run id and the checkpoint id, in base64url: 43 characters of A–Z a–z 0–9 - _. */
export function idempotencyKey(ctx: { runId: string; stepId: string }): string {
  return createHash('sha256').update(`${ctx.runId}\u0000${ctx.stepId}`).digest('base64url');
}

/**
 * The header's value: the draft defines it as a Structured Field string, so the key is sent
 * quoted (base64url holds nothing that needs escaping). A receiver that does not parse
 * Structured Fields sees the same 45 characters on every attempt all the same.
 */
export function idempotencyKeyHeaderValue(key: string): string {
  return `"${key}"`;
}
