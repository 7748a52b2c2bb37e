/**
 * The first difference between the output a case expects and the one its run produced, said as
 * a person would: `output.items[2].title: expected "a", got "b"`. The structural diff is
 * microdiff's (the one the engine compares runs with); its first change is the first in key order
 * of the expected value.
 */
import type { Json } from '@weft/engine';
import diff from 'microdiff';

const PREVIEW_CHARS = 80;

export function outputDifference(expected: Json, actual: Json): string | undefined {
  // microdiff compares objects and arrays: wrapping both makes a changed scalar (or a changed
  // type at the top) one CHANGE at the root like any other.
  const [change] = diff({ output: expected }, { output: actual }, { cyclesFix: false });
  if (!change) return undefined;
  const path = formatJsonPath(change.path);
  switch (change.type) {
    case 'CREATE':
      return `${path}: not expected, got ${preview(change.value)}`;
    case 'REMOVE':
      return `${path}: expected ${preview(change.oldValue)}, missing`;
    case 'CHANGE':
      return `${path}: expected ${preview(change.oldValue)}, got ${preview(change.value)}`;
  }
}

/** `['output', 'items', 2, 'a b']` → `output.items[2]["a b"]`. */
export function formatJsonPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** A value short enough for one line. */
export function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}
