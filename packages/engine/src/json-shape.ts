/**
 * Limits on the shape of JSON that comes from outside (flow documents, run inputs, request
 * bodies), checked before anything recursive walks it. `JSON.parse`, `JSON.stringify`,
 * `structuredClone` and every recursive validator overflow the stack somewhere past a few
 * thousand levels, and the error they give ("Maximum call stack size exceeded") names nothing;
 * these checks are iterative and name the path where the limit was crossed.
 *
 * `__proto__` as a key is refused in flow documents: `JSON.parse` keeps it as data, but almost
 * everything after (zod records, `Object.assign`, spreads into plain objects, generated code)
 * either drops it silently or turns it into the object's prototype.
 */
import { formatPath, type JsonPath } from './validate/issues.ts';

/** Deeper than any flow needs (100 nested steps are ~400 levels), far below the stack's limit. */
export const MAX_DOCUMENT_DEPTH = 1000;
/** Run inputs, fixtures and approval payloads. */
export const MAX_INPUT_DEPTH = 256;

export interface ShapeIssue {
  path: JsonPath;
  message: string;
}

/** Iteratively: the first place `value` is nested deeper than `maxDepth` (or holds a `__proto__` key). */
export function checkJsonShape(
  value: unknown,
  maxDepth: number,
  options: { refuseProtoKeys?: boolean } = {},
): ShapeIssue | undefined {
  const pending: { node: unknown; path: JsonPath }[] = [{ node: value, path: [] }];
  while (pending.length > 0) {
    const { node, path } = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (path.length >= maxDepth) return { path, message: tooDeepMessage(maxDepth) };
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--)
        pending.push({ node: node[index], path: [...path, index] });
      continue;
    }
    const keys = Object.keys(node);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!;
      if (key === '__proto__' && options.refuseProtoKeys) {
        return {
          path: [...path, key],
          message: "'__proto__' cannot be a key: JavaScript would read it as the object's prototype, not as data",
        };
      }
      pending.push({ node: (node as Record<string, unknown>)[key], path: [...path, key] });
    }
  }
  return undefined;
}

/**
 * The same depth check on JSON text, before `JSON.parse` (which itself overflows the stack on
 * deep enough input). Undefined when the text is within the limit (or is not JSON at all: the
 * parser will say so).
 */
export function checkJsonTextDepth(text: string, maxDepth: number): ShapeIssue | undefined {
  const frames: { array: boolean; key: string | number }[] = [];
  let lastString = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      for (i = start; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
      lastString = text.slice(start, Math.min(i, start + 64));
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      frames.push({ array: c === 0x5b, key: c === 0x5b ? 0 : '' });
      if (frames.length > maxDepth) {
        return { path: frames.slice(0, -1).map((frame) => frame.key), message: tooDeepMessage(maxDepth) };
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      frames.pop();
    } else if (c === 0x3a /* : */) {
      const top = frames.at(-1);
      if (top && !top.array) top.key = lastString;
    } else if (c === 0x2c /* , */) {
      const top = frames.at(-1);
      if (top?.array) top.key = (top.key as number) + 1;
    }
  }
  return undefined;
}

/** A path of up to ~1000 keys, shortened in the middle so a message stays readable. */
export function formatLongPath(path: JsonPath): string {
  if (path.length <= 12) return formatPath(path);
  const head = formatPath(path.slice(0, 6));
  const tail = formatPath(['…', ...path.slice(-4)]).replace(/^\["…"\]/, '');
  return `${head}…(${path.length - 10} more levels)…${tail}`;
}

function tooDeepMessage(maxDepth: number): string {
  return `nested more than ${maxDepth} levels deep (the limit for JSON here)`;
}
