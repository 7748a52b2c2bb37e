/**
 * Side-by-side diffs with jsdiff: model text by words, JSON by lines of its pretty print. Each
 * side keeps its own text in order with the parts the other side lacks marked — removed on the
 * left (A), added on the right (B) — so the two columns read as the two values.
 */
import { diffLines, diffWordsWithSpace } from 'diff';

export interface Segment {
  text: string;
  kind: 'same' | 'removed' | 'added';
}

export interface Sides {
  left: Segment[];
  right: Segment[];
  same: boolean;
}

function split(changes: { value: string; added?: boolean; removed?: boolean }[]): Sides {
  const left: Segment[] = [];
  const right: Segment[] = [];
  let same = true;
  for (const change of changes) {
    if (change.added) {
      right.push({ text: change.value, kind: 'added' });
      same = false;
    } else if (change.removed) {
      left.push({ text: change.value, kind: 'removed' });
      same = false;
    } else {
      left.push({ text: change.value, kind: 'same' });
      right.push({ text: change.value, kind: 'same' });
    }
  }
  return { left, right, same };
}

/** Two texts (a model's answers) word by word. */
export function textSides(a: string, b: string): Sides {
  return split(diffWordsWithSpace(a, b));
}

/** JSON, pretty-printed with sorted keys (so key order is no difference), line by line. */
export function jsonSides(a: unknown, b: unknown): Sides {
  return split(diffLines(stableJson(a), stableJson(b)));
}

export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2) ?? 'undefined'}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** The model text of a step's output (an llm step's or a model turn's `text`), if it has one. */
export function modelText(output: unknown): string | null {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return null;
  const text = (output as { text?: unknown }).text;
  return typeof text === 'string' ? text : null;
}

/** A change path (`['output', 'list', 1]`) as `output.list[1]`. */
export function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : String(part)),
    '',
  );
}

/** A value in a change list: short JSON. */
export function short(value: unknown, max = 80): string {
  const text = value === undefined ? '—' : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `+12`, `−3`, `0`. */
export function signed(value: number): string {
  return value > 0 ? `+${value}` : value < 0 ? `−${Math.abs(value)}` : '0';
}

/** `$0.0042`, `$1.25`, `$0`: small model costs keep their significant digits. */
export function usd(value: number): string {
  if (value === 0) return '$0';
  const abs = Math.abs(value);
  const text = abs >= 1 ? abs.toFixed(2) : abs.toPrecision(2);
  return `${value < 0 ? '−' : ''}$${text}`;
}
