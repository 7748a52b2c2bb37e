/**
 * The expression field's logic, framework-free: validation (`=expr` via compileExpression,
 * strings with `{{` via compileTemplate, both reporting a position), the names in scope at a
 * node (for autocomplete) and the completions for the word at the cursor.
 */
import {
  bodyNames,
  type CompiledExpression,
  type CompiledTemplate,
  compileExpression,
  compileTemplate,
  EXPR_HELPERS,
  ExpressionError,
  type FlowGraph,
  manifestOf,
} from '@weft/engine';

export type ExprMode = 'expression' | 'template' | 'literal';

export interface ExprCheck {
  mode: ExprMode;
  /** A parse error; `position` is a 0-based offset into the field's text (the `=` counts). */
  error: { message: string; position: number | null } | null;
}

export function exprMode(text: string): ExprMode {
  if (text.startsWith('=')) return 'expression';
  return text.includes('{{') ? 'template' : 'literal';
}

/** Names every expression may mention without a map around it (validation says where each applies). */
const ALWAYS_NAMED = ['input', 'steps', 'index', 'iteration', 'args'];

/**
 * Parses what the field holds. `exprOnly` fields (items, while, …) must be a whole `=expr`.
 * With `suggestions` (what is in scope at the node), a name that nothing binds there — a
 * misspelt map item, say — is an error at its position too.
 */
export function checkExpression(text: string, exprOnly = false, suggestions?: readonly Suggestion[]): ExprCheck {
  const mode = exprMode(text);
  if (exprOnly && mode !== 'expression') {
    return {
      mode,
      error: text === '' ? null : { message: 'must be an expression starting with "="', position: 0 },
    };
  }
  try {
    const compiled: CompiledExpression | CompiledTemplate | null =
      mode === 'expression' ? compileExpression(text) : mode === 'template' ? compileTemplate(text) : null;
    if (compiled && suggestions) {
      const known = new Set([...ALWAYS_NAMED, ...suggestions.map((s) => s.label)]);
      for (const [name, at] of compiled.namePositions) {
        if (known.has(name)) continue;
        const position = at + (mode === 'expression' ? 1 : 0);
        return { mode, error: { message: `unknown name '${name}' (a map names its item with 'as')`, position } };
      }
    }
    return { mode, error: null };
  } catch (error) {
    if (!(error instanceof ExpressionError)) return { mode, error: { message: String(error), position: null } };
    const position = error.position === undefined ? null : error.position + (mode === 'expression' ? 1 : 0);
    return { mode, error: { message: error.message, position } };
  }
}

/** "line 1, column 5" style location of an offset, for the inline error. */
export function describePosition(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - (before.lastIndexOf('\n') + 1) + 1;
  return text.includes('\n') ? `line ${line}, column ${column}` : `column ${column}`;
}

export interface Suggestion {
  /** What is inserted. */
  label: string;
  detail: string;
}

/**
 * The ids of the step nodes that run before `nodeId`: every node from which it is reachable
 * along the graph's edges (an approximation of what is in scope: it ignores that a map's body
 * outputs are per-iteration). Containers that hold the node are excluded (they have not
 * finished), as are start/end/merge/join nodes.
 */
export function earlierSteps(graph: FlowGraph, nodeId: string): string[] {
  const incoming = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = incoming.get(edge.target) ?? [];
    list.push(edge.source);
    incoming.set(edge.target, list);
  }
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const enclosing = new Set<string>();
  for (let parent = byId.get(nodeId)?.parentId; parent !== undefined && !enclosing.has(parent); ) {
    enclosing.add(parent);
    parent = byId.get(parent)?.parentId;
  }
  const seen = new Set<string>([nodeId]);
  const order: string[] = [];
  const queue = [nodeId];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const source of incoming.get(current) ?? []) {
      if (seen.has(source)) continue;
      seen.add(source);
      queue.push(source);
      const node = byId.get(source);
      if (node?.kind === 'step' && !enclosing.has(source)) order.push(source);
    }
    // A body's first step hangs off its container: continue from the container's predecessors.
    const node = byId.get(current);
    if (node?.parentId && !seen.has(node.parentId) && (incoming.get(current) ?? []).length === 0) {
      seen.add(node.parentId);
      queue.push(node.parentId);
    }
  }
  return order.reverse();
}

/** Properties of a JSON Schema object (top level). */
function schemaProps(schema: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const properties = (schema as { properties?: unknown }).properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
}

/** Every name an expression at `nodeId` can read (null: the flow level, e.g. the output). */
export function scopeSuggestions(graph: FlowGraph, nodeId: string | null): Suggestion[] {
  const out: Suggestion[] = [{ label: 'input', detail: 'the run input' }];
  for (const prop of schemaProps(graph.meta.input)) out.push({ label: `input.${prop}`, detail: 'input property' });
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const ids =
    nodeId === null
      ? graph.nodes.filter((node) => node.kind === 'step' && node.parentId === undefined).map((node) => node.id)
      : earlierSteps(graph, nodeId);
  for (const id of ids) {
    const node = byId.get(id);
    out.push({ label: `steps.${id}.output`, detail: `output of ${node?.stepType ?? 'step'} ${id}` });
    if (node?.stepType === 'llm') {
      out.push({ label: `steps.${id}.output.text`, detail: 'the reply text' });
      out.push({ label: `steps.${id}.output.messages`, detail: 'the conversation' });
      if (node.config?.schema !== undefined)
        out.push({ label: `steps.${id}.output.object`, detail: 'the structured output' });
    }
  }
  if (nodeId !== null) {
    for (let parent = byId.get(nodeId)?.parentId; parent !== undefined; parent = byId.get(parent)?.parentId) {
      const container = byId.get(parent);
      // The names each enclosing container's body reads (a map's item and index, a loop's iteration).
      const body = container?.stepType === undefined ? undefined : manifestOf(container.stepType).body;
      const names = bodyNames(body, container?.config ?? {});
      body?.names.forEach(({ detail }, index) => {
        out.push({ label: names[index]!, detail: `${detail} of ${parent}` });
      });
      if (!container) break;
    }
  }
  for (const [name, helper] of EXPR_HELPERS) out.push({ label: `${name}(`, detail: helper.signature });
  return out;
}

/** The dotted word ending at `cursor` (what a completion replaces). */
export function wordAt(text: string, cursor: number): { start: number; word: string } {
  let start = cursor;
  while (start > 0 && /[\w.$]/.test(text[start - 1] as string)) start--;
  return { start, word: text.slice(start, cursor) };
}

/** Whether the cursor is where an expression is written: anywhere in `=expr`, inside `{{ }}` of a template. */
export function inExpression(text: string, cursor: number): boolean {
  if (text.startsWith('=')) return cursor > 0;
  const open = text.lastIndexOf('{{', cursor - 1);
  if (open < 0 || open + 2 > cursor) return false;
  const close = text.indexOf('}}', open);
  return close < 0 || close >= cursor;
}

/** Completions for the word at the cursor (none outside an expression, at most `limit`). */
export function completions(
  text: string,
  cursor: number,
  all: readonly Suggestion[],
  limit = 12,
): { start: number; items: Suggestion[] } {
  const { start, word } = wordAt(text, cursor);
  if (!inExpression(text, cursor)) return { start, items: [] };
  const lower = word.toLowerCase();
  const items = all.filter((s) => s.label.toLowerCase().startsWith(lower) && s.label !== word).slice(0, limit);
  return { start, items };
}

/** Inserts a completion for the word at the cursor; returns the new text and cursor. */
export function applyCompletion(text: string, cursor: number, label: string): { text: string; cursor: number } {
  const { start } = wordAt(text, cursor);
  const next = text.slice(0, start) + label + text.slice(cursor);
  return { text: next, cursor: start + label.length };
}
