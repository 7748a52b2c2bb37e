/**
 * A fingerprint of a checkpointed call. The journal stores it next to the result, so a replay
 * that asks for the same step id with different input (the flow changed under a live run) is
 * caught as a determinism error instead of silently reusing a stale answer.
 * Pure JavaScript (no crypto module): it must run inside Temporal's workflow sandbox too.
 */
import type { StepCall } from './host.ts';

export function hashCall(call: StepCall): string {
  if (call.kind === 'model-turn') {
    // An agent's conversation only grows, and the same message objects are handed to every
    // later turn: hashing each message once keeps a 20-turn loop linear, not quadratic.
    const { messages, ...rest } = call.input;
    return `model-turn:${cyrb53(`${canonicalJson(rest)}|${messages.map(hashMessage).join(',')}`)}`;
  }
  // `code@2`: since a code call's `steps` holds only the outputs its source reads (steps/code.ts).
  if (call.kind === 'code') return `${CODE_HASH}${hashValue(call.input)}`;
  return `${call.kind}:${hashValue(call.input)}`;
}

const CODE_HASH = 'code@2:';
const LEGACY_CODE_HASH = 'code:';

/**
 * Whether a journaled call answers the one a replay asks for: the same hash, or a code call
 * journaled by a Weft that handed every earlier output to a code step (`code:`). A run is pinned
 * to its flow version, so such an entry is the same step of the same flow; only what the call
 * carries changed, and a run parked across the upgrade must resume, not fail as diverged.
 */
export function sameCall(recordedHash: string, hash: string): boolean {
  return recordedHash === hash || (recordedHash.startsWith(LEGACY_CODE_HASH) && hash.startsWith(CODE_HASH));
}

const messageHashes = new WeakMap<object, string>();

function hashMessage(message: object): string {
  let hash = messageHashes.get(message);
  if (hash === undefined) {
    hash = cyrb53(canonicalJson(message));
    messageHashes.set(message, hash);
  }
  return hash;
}

export function hashValue(value: unknown): string {
  return cyrb53(canonicalJson(value));
}

/**
 * JSON with object keys sorted, so the same value always gives the same text. Built by
 * appending to one string rather than mapping and joining arrays: it runs for every checkpointed
 * call, and for a small input the intermediate arrays cost more than the text. The text must
 * never change (journals hold hashes of it): `undefined` members are left out, and anything
 * JSON.stringify would not write is written `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ',';
      text += canonicalJson(value[index]);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/** cyrb53, written in base 36: what journals hold. */
function cyrb53(text: string): string {
  return base36(hash53(text));
}

/** cyrb53: a fast, well-distributed 53-bit string hash. */
export function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** 36^6: below 2^32, so each half of a hash converts as a uint32. */
const BASE36_LOW = 2_176_782_336;

/**
 * `value.toString(36)` for a non-negative integer below 2^53, in two uint32 halves: the same
 * digits (the remainder and the division of a multiple are exact in doubles), several times
 * faster than V8's radix conversion of a large double, which cost more than the hash itself.
 */
export function base36(value: number): string {
  const low = value % BASE36_LOW;
  const high = (value - low) / BASE36_LOW;
  const lowDigits = (low >>> 0).toString(36);
  return high === 0 ? lowDigits : (high >>> 0).toString(36) + lowDigits.padStart(6, '0');
}
