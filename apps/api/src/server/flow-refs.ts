/**
 * What a flow document uses, read loosely (the document may not be valid yet): the other flows it
 * needs (`spawn` steps and flow tools name them by id) and the step types it is made of. Import
 * and the example gallery read these before anything is validated, to say what is missing.
 */
import { parseFlowRef } from '@weft/engine';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every object of the document but its editor layout (`ui`), depth first. */
function visitObjects(doc: unknown, visit: (record: Record<string, unknown>) => void): void {
  const walk = (node: unknown, depth: number) => {
    // Documents are depth-limited by validation later; a loose read must not recurse forever.
    if (depth > 64) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    if (!isRecord(node)) return;
    visit(node);
    for (const [key, value] of Object.entries(node)) if (key !== 'ui') walk(value, depth + 1);
  };
  walk(doc, 0);
}

/** Ids of the flows `doc` spawns or calls as tools, each once, in document order. */
export function flowRefsOf(doc: unknown): string[] {
  const found = new Set<string>();
  visitObjects(doc, (record) => {
    // A spawn step, or a flow tool (tools are the objects with `parameters`).
    if ((record.type === 'spawn' || 'parameters' in record) && typeof record.flow === 'string') {
      const ref = parseFlowRef(record.flow);
      if (ref) found.add(ref.id);
    }
  });
  const own = isRecord(doc) ? doc.id : undefined;
  found.delete(typeof own === 'string' ? own : '');
  return [...found];
}

/** The step types `doc` uses, each once, in document order. */
export function stepTypesOf(doc: unknown): string[] {
  const types = new Set<string>();
  const steps = isRecord(doc) ? doc.steps : undefined;
  visitObjects(steps, (record) => {
    if (typeof record.type === 'string' && typeof record.id === 'string') types.add(record.type);
  });
  return [...types];
}

/** The kinds of flow tools `doc` declares (`http`, `source`, `flow`), each once. */
export function toolKindsOf(doc: unknown): string[] {
  const tools = isRecord(doc) && isRecord(doc.tools) ? Object.values(doc.tools) : [];
  const kinds = new Set<string>();
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    for (const kind of ['http', 'source', 'flow']) if (kind in tool) kinds.add(kind);
  }
  return [...kinds];
}

/**
 * `docs` ordered so that every flow comes after the flows it uses (those among `docs`); a cycle
 * keeps document order (validation reports it).
 */
export function dependenciesFirst<T extends { id: string; doc: unknown }>(docs: readonly T[]): T[] {
  const byId = new Map(docs.map((entry) => [entry.id, entry]));
  const ordered: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (entry: T) => {
    if (state.has(entry.id)) return;
    state.set(entry.id, 'visiting');
    for (const ref of flowRefsOf(entry.doc)) {
      const needed = byId.get(ref);
      if (needed) visit(needed);
    }
    state.set(entry.id, 'done');
    ordered.push(entry);
  };
  for (const entry of docs) visit(entry);
  return ordered;
}
