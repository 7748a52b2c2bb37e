/**
 * Templates: text with `{{ expr }}` interpolations. Values render as: strings as-is,
 * null/undefined as '', numbers/booleans with String(), objects/arrays as JSON. `\{{` is a
 * literal `{{`. Inside `{{ }}`, braces and quoted strings are skipped, so `{{ {a: '}}'} }}` works.
 */
import { ExpressionError } from '../errors.ts';
import { compileExpression, runExpression } from './compile.ts';
import { BUDGET_MESSAGE, resetBudget, tryCharge } from './limits.ts';
import type { CompiledExpression, CompiledTemplate, ExprScope, StepRef } from './types.ts';
import { renderValue } from './values.ts';

export const TEMPLATE_CACHE_SIZE = 1_000;
const cache = new Map<string, CompiledTemplate>();

class Template implements CompiledTemplate {
  readonly source: string;
  readonly parts: readonly (string | CompiledExpression)[];
  readonly roots: ReadonlySet<string>;
  readonly namePositions: ReadonlyMap<string, number>;
  readonly stepRefs: readonly StepRef[];
  /** For each part, its offset in the source (for error positions). */
  private readonly offsets: readonly number[];

  constructor(source: string, parts: (string | CompiledExpression)[], offsets: number[]) {
    this.source = source;
    this.parts = parts;
    this.offsets = offsets;
    const roots = new Set<string>();
    const namePositions = new Map<string, number>();
    const stepRefs: StepRef[] = [];
    const seen = new Set<string>();
    parts.forEach((part, index) => {
      if (typeof part === 'string') return;
      for (const root of part.roots) roots.add(root);
      for (const [name, at] of part.namePositions) {
        if (!namePositions.has(name)) namePositions.set(name, offsets[index]! + at);
      }
      for (const ref of part.stepRefs) {
        const key = JSON.stringify(ref);
        if (!seen.has(key)) {
          seen.add(key);
          stepRefs.push(ref);
        }
      }
    });
    this.roots = roots;
    this.namePositions = namePositions;
    this.stepRefs = stepRefs;
  }

  render(scope: ExprScope): string {
    resetBudget();
    let out = '';
    for (let i = 0; i < this.parts.length; i++) {
      const part = this.parts[i]!;
      if (typeof part === 'string') {
        out += part;
        continue;
      }
      let text: string;
      try {
        text = renderValue(runExpression(part, scope));
      } catch (error) {
        const e = error instanceof ExpressionError ? error : new ExpressionError(String(error), part.source);
        throw new ExpressionError(e.message, this.source, this.offsets[i]! + (e.position ?? 0));
      }
      if (!tryCharge(text.length)) throw new ExpressionError(BUDGET_MESSAGE, this.source, this.offsets[i]);
      out += text;
    }
    return out;
  }
}

/** Compiles a template. Throws ExpressionError with a position into `text`. */
export function compileTemplate(text: string): CompiledTemplate {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const parts: (string | CompiledExpression)[] = [];
  const offsets: number[] = [];
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) {
      literal += text.slice(i);
      break;
    }
    if (open > 0 && text[open - 1] === '\\') {
      literal += `${text.slice(i, open - 1)}{{`;
      i = open + 2;
      continue;
    }
    literal += text.slice(i, open);
    const close = findClose(text, open + 2);
    if (close < 0) throw new ExpressionError(`'{{' at ${open} is not closed with '}}'`, text, open);
    const inner = text.slice(open + 2, close);
    const lead = inner.length - inner.trimStart().length;
    const body = inner.trim();
    if (body === '') throw new ExpressionError(`'{{ }}' at ${open} is empty`, text, open);
    if (body.startsWith('=')) throw new ExpressionError("write '{{ expr }}', without '='", text, open + 2 + lead);
    let expr: CompiledExpression;
    try {
      expr = compileExpression(body);
    } catch (error) {
      const e = error as ExpressionError;
      throw new ExpressionError(e.message, text, open + 2 + lead + (e.position ?? 0));
    }
    if (literal !== '') {
      parts.push(literal);
      offsets.push(i);
      literal = '';
    }
    parts.push(expr);
    offsets.push(open + 2 + lead);
    i = close + 2;
  }
  if (literal !== '') {
    parts.push(literal);
    offsets.push(i);
  }
  const template = new Template(text, parts, offsets);
  if (cache.size >= TEMPLATE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(text, template);
  return template;
}

/** The index of the `}}` that closes an interpolation starting at `from`, or -1. */
function findClose(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0 && text[i + 1] === '}') return i;
      if (depth > 0) depth--;
    }
  }
  return -1;
}
