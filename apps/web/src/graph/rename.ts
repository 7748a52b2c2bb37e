/**
 * Renaming a step id: the node, its merge/join partner (`<id>/merge`, `<id>/join`), the
 * `parentId` of its body, every edge touching them (edge ids are derived from ends and handle),
 * and references `steps.<old>` in string config values anywhere in the graph.
 */
import {
  edgeId,
  type FlowGraph,
  type GraphEdge,
  type GraphNode,
  type Json,
  joinNodeId,
  mergeNodeId,
} from '@weft/engine';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

export type RenameResult = { ok: true; graph: FlowGraph } | { ok: false; error: string };

/** Rewrites `steps.<old>` (and `steps["old"]`) in every string of a JSON value. */
export function renameReferences(value: Json, renames: ReadonlyMap<string, string>): Json {
  if (typeof value === 'string') {
    if (!value.includes('steps')) return value;
    return value.replace(
      /\bsteps(\.([A-Za-z_][A-Za-z0-9_]*)\b|\[(["'])([A-Za-z_][A-Za-z0-9_]*)\3\])/g,
      (match, _all, dotted: string | undefined, quote: string | undefined, quoted: string | undefined) => {
        const name = dotted ?? quoted ?? '';
        const next = renames.get(name);
        if (next === undefined) return match;
        return dotted !== undefined ? `steps.${next}` : `steps[${quote}${next}${quote}]`;
      },
    );
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = renameReferences(item, renames);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, Json> = {};
    for (const [key, item] of Object.entries(value)) {
      const next = renameReferences(item, renames);
      if (next !== item) changed = true;
      out[key] = next;
    }
    return changed ? out : value;
  }
  return value;
}

/** Node-id renames implied by renaming steps (`a` → `b` also renames `a/merge`, `a/join`). */
export function nodeRenames(stepRenames: ReadonlyMap<string, string>): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [from, to] of stepRenames) {
    ids.set(from, to);
    ids.set(mergeNodeId(from), mergeNodeId(to));
    ids.set(joinNodeId(from), joinNodeId(to));
  }
  return ids;
}

/** Applies node-id renames to nodes and edges (ids, parents, ends) and `steps.*` references. */
export function applyRenames(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  stepRenames: ReadonlyMap<string, string>,
): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const ids = nodeRenames(stepRenames);
  const to = (id: string) => ids.get(id) ?? id;
  return {
    nodes: nodes.map((node) => {
      const id = to(node.id);
      const parentId = node.parentId === undefined ? undefined : to(node.parentId);
      const config = node.config ? (renameReferences(node.config, stepRenames) as Record<string, Json>) : undefined;
      if (id === node.id && parentId === node.parentId && config === node.config) return node;
      return {
        ...node,
        id,
        ...(parentId === undefined ? {} : { parentId }),
        ...(config === undefined ? {} : { config }),
      };
    }),
    edges: edges.map((edge) => {
      const source = to(edge.source);
      const target = to(edge.target);
      if (source === edge.source && target === edge.target) return edge;
      return { ...edge, id: edgeId(source, target, edge.sourceHandle), source, target };
    }),
  };
}

export function renameStep(graph: FlowGraph, from: string, to: string): RenameResult {
  const node = graph.nodes.find((candidate) => candidate.id === from);
  if (node?.kind !== 'step') return { ok: false, error: `there is no step '${from}'` };
  if (to === from) return { ok: true, graph };
  if (!isIdentifier(to))
    return { ok: false, error: 'a step id is an identifier: letters, digits and _, not starting with a digit' };
  if (graph.nodes.some((candidate) => candidate.id === to)) return { ok: false, error: `'${to}' is already taken` };
  const renamed = applyRenames(graph.nodes, graph.edges, new Map([[from, to]]));
  let meta = graph.meta;
  if (meta.output !== undefined) {
    const output = renameReferences(meta.output, new Map([[from, to]]));
    if (output !== meta.output) meta = { ...meta, output };
  }
  return { ok: true, graph: { ...graph, meta, ...renamed } };
}
