/**
 * Size limits on what a run produces: a step's output, the run's output, a single event. Each is
 * configurable by an environment variable (a positive whole number of bytes of JSON, as
 * WEFT_MAX_INPUT_BYTES is for run input) and named in the error that refuses a value over it.
 *
 * Why: the stores are written on the event loop (node:sqlite is synchronous; serializing and
 * indexing a value costs time in proportion to its size), so one 4 MB step result held the API
 * for seconds. A value is measured by walking it (`jsonBytes`), which stops as soon as it is past
 * the limit: refusing a 400 MB result costs no more than measuring 1 MiB of it.
 */
import { NonRetryableError } from '@weft/engine';

export interface SizeLimit {
  /** How errors name it: "step output", "run output", "event". */
  what: string;
  env: string;
  defaultBytes: number;
}

const MiB = 1024 * 1024;

export const STEP_OUTPUT_LIMIT: SizeLimit = {
  what: 'step output',
  env: 'WEFT_MAX_STEP_OUTPUT_BYTES',
  defaultBytes: MiB,
};
export const RUN_OUTPUT_LIMIT: SizeLimit = { what: 'run output', env: 'WEFT_MAX_RUN_OUTPUT_BYTES', defaultBytes: MiB };
/** Larger than a step's output: a container step's output gathers its children's (a map's items). */
export const EVENT_LIMIT: SizeLimit = { what: 'event', env: 'WEFT_MAX_EVENT_BYTES', defaultBytes: 2 * MiB };

/** The limit in bytes: the environment's value, else the default. An invalid value throws, naming the variable. */
export function sizeLimit(limit: SizeLimit, env: Record<string, string | undefined> = process.env): number {
  const text = env[limit.env];
  if (text === undefined || text.trim() === '') return limit.defaultBytes;
  const bytes = Number(text);
  if (!Number.isSafeInteger(bytes) || bytes <= 0)
    throw new Error(`${limit.env} must be a positive whole number of bytes, not "${text}"`);
  return bytes;
}

/** "4.2 MB", "1 MiB", "900 bytes": sizes as errors show them. */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  if (bytes >= 10_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${bytes} bytes`;
}

/** A value over one of the limits above. Not retryable: the same step gives the same value. */
export class SizeLimitError extends NonRetryableError {
  override readonly name = 'SizeLimitError';
  readonly limit: SizeLimit;
  readonly bytes: number;
  readonly limitBytes: number;
  /**
   * `subject` says whose value it is ("step 'big' output", "run output"); `atLeast` when
   * measuring stopped early, past the limit (the message then gives no size).
   */
  constructor(subject: string, bytes: number, limitBytes: number, limit: SizeLimit, atLeast = false) {
    const over = `over the ${formatBytes(limitBytes)} ${limit.what} limit (${limit.env})`;
    super(atLeast ? `${subject} is ${over}` : `${subject} is ${formatBytes(bytes)}, ${over}`);
    this.limit = limit;
    this.bytes = bytes;
    this.limitBytes = limitBytes;
  }
}

/**
 * Throws a SizeLimitError when `value` as JSON is over `limitBytes`. `subject` names the value
 * in the message. Walks at most about `limitBytes` of it.
 */
export function checkSize(value: unknown, limitBytes: number, limit: SizeLimit, subject: string): void {
  const bytes = jsonBytes(value, limitBytes);
  if (bytes > limitBytes) throw new SizeLimitError(subject, bytes, limitBytes, limit, true);
}

// Characters JSON.stringify writes as an escape: two characters for these, six (\u00XX) for the rest.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters JSON escapes are what it counts
const ESCAPED = /["\\\u0000-\u001f]/g;
const SHORT_ESCAPES = new Set(['"', '\\', '\b', '\f', '\n', '\r', '\t']);

function stringBytes(text: string): number {
  let bytes = Buffer.byteLength(text, 'utf8') + 2;
  ESCAPED.lastIndex = 0;
  if (!ESCAPED.test(text)) return bytes;
  ESCAPED.lastIndex = 0;
  for (const [char] of text.matchAll(ESCAPED)) bytes += SHORT_ESCAPES.has(char) ? 1 : 5;
  return bytes;
}

/** An array being walked: its elements are taken one at a time, so a long one stops early too. */
class ArrayWalk {
  readonly items: readonly unknown[];
  next = 0;
  constructor(items: readonly unknown[]) {
    this.items = items;
  }
}

/**
 * The UTF-8 length of `JSON.stringify(value)` without building it (lone surrogates, which it
 * writes as six-character escapes, count as three bytes), or the count so far once it passes
 * `stopAbove`. Iterative: a 5,000-deep array is no deeper for it than a flat one.
 */
export function jsonBytes(value: unknown, stopAbove: number): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    if (bytes > stopAbove) return bytes;
    let item = pending.pop();
    if (item instanceof ArrayWalk) {
      if (item.next < item.items.length) {
        const element = item.items[item.next++];
        pending.push(item);
        // In an array, what JSON cannot hold is written as null.
        item = element === undefined || typeof element === 'function' ? null : element;
      } else continue;
    }
    if (item !== null && typeof item === 'object' && typeof (item as { toJSON?: unknown }).toJSON === 'function') {
      item = (item as { toJSON(): unknown }).toJSON();
    }
    switch (typeof item) {
      case 'string':
        bytes += stringBytes(item);
        break;
      case 'number':
        bytes += Number.isFinite(item) ? String(item).length : 4;
        break;
      case 'boolean':
        bytes += item ? 4 : 5;
        break;
      case 'object': {
        if (item === null) {
          bytes += 4;
          break;
        }
        if (Array.isArray(item)) {
          bytes += 2 + Math.max(item.length - 1, 0);
          pending.push(new ArrayWalk(item));
          break;
        }
        let members = 0;
        for (const key in item) {
          if (!Object.hasOwn(item, key)) continue;
          const member = (item as Record<string, unknown>)[key];
          if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
          bytes += stringBytes(key) + 1;
          members++;
          pending.push(member);
          if (bytes > stopAbove) return bytes;
        }
        bytes += 2 + Math.max(members - 1, 0);
        break;
      }
      default:
        // undefined, a function or a symbol at the top: JSON.stringify gives undefined; count "null".
        bytes += 4;
    }
  }
  return bytes;
}

/** The limits the in-process host checks each event against, read once per execution. */
export interface EventLimits {
  eventBytes: number;
  runOutputBytes: number;
}

export function eventLimits(env: Record<string, string | undefined> = process.env): EventLimits {
  return { eventBytes: sizeLimit(EVENT_LIMIT, env), runOutputBytes: sizeLimit(RUN_OUTPUT_LIMIT, env) };
}

/**
 * Throws a SizeLimitError when an event that carries a value (a step's input or output, the
 * run's output) is over its limit. Events without one are small by construction and not walked.
 */
export function checkEventSize(
  event: { type: string; stepId?: string; input?: unknown; output?: unknown },
  limits: EventLimits,
): void {
  switch (event.type) {
    case 'step.started':
      if (event.input !== undefined && event.input !== null)
        checkSize(event.input, limits.eventBytes, EVENT_LIMIT, `step '${event.stepId}' input`);
      return;
    case 'step.completed':
      checkSize(event.output, limits.eventBytes, EVENT_LIMIT, `step '${event.stepId}' output`);
      return;
    case 'run.completed':
      checkSize(event.output, limits.runOutputBytes, RUN_OUTPUT_LIMIT, 'run output');
      checkSize(event.output, limits.eventBytes, EVENT_LIMIT, 'run output');
      return;
  }
}
