/**
 * The clipboard as IR JSON, so steps travel through the system clipboard between tabs and flows:
 * copied steps are compiled (structure only: they may refer to steps left behind) into
 * `{ "kind": "weft/steps", "irVersion": 1, "steps": [...], "tools": {...} }`, with the flow tools
 * they name. Pasting reads that, a whole flow document, an array of steps or one step, and draws
 * it as graph nodes again (flowToGraph), ready for `pasteNodes`.
 */
import {
  END_NODE_ID,
  type Flow,
  type FlowGraph,
  flowToGraph,
  type GraphEdge,
  type GraphNode,
  graphToFlow,
  type Json,
  joinNodeId,
  mergeNodeId,
  START_NODE_ID,
} from '@weft/engine';
import type { Clipboard } from './clipboard.ts';
import { makeEdge } from './graph-edit.ts';

export const CLIPBOARD_KIND = 'weft/steps';

/** Steps pasted from text, with the flow tools they brought. */
export interface PastedSteps {
  clipboard: Clipboard;
  tools: Record<string, Json>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where a chain that starts at `entry` ends: along plain edges, a fan-out through its merge/join. */
function chainExit(entry: string, nodes: ReadonlyMap<string, GraphNode>, edges: readonly GraphEdge[]): string {
  let at = entry;
  const seen = new Set<string>();
  while (!seen.has(at)) {
    seen.add(at);
    const node = nodes.get(at);
    const fanOutExit =
      node?.stepType === 'branch' ? mergeNodeId(at) : node?.stepType === 'parallel' ? joinNodeId(at) : null;
    if (fanOutExit && nodes.has(fanOutExit)) {
      at = fanOutExit;
      continue;
    }
    const next = edges.find((edge) => edge.source === at && !edge.sourceHandle && nodes.has(edge.target));
    if (!next) break;
    at = next.target;
  }
  return at;
}

/** The top-level chains of `clipboard` as [entry, exit] pairs, top to bottom. */
export function chainsOf(clipboard: Clipboard): [string, string][] {
  const nodes = new Map(clipboard.nodes.map((node) => [node.id, node]));
  const targets = new Set(clipboard.edges.map((edge) => edge.target));
  return clipboard.nodes
    .filter((node) => node.parentId === undefined && node.kind === 'step' && !targets.has(node.id))
    .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x)
    .map((node) => [node.id, chainExit(node.id, nodes, clipboard.edges)]);
}

/** Names of flow tools the steps use (`tools: [...]` of an llm, `tool` of a tool step). */
function toolNamesOf(nodes: readonly GraphNode[]): Set<string> {
  const names = new Set<string>();
  for (const node of nodes) {
    const { tools, tool } = node.config ?? {};
    if (Array.isArray(tools)) for (const name of tools) if (typeof name === 'string') names.add(name);
    if (typeof tool === 'string') names.add(tool);
  }
  return names;
}

/** The clipboard as IR JSON text, or null when its steps do not compile even as a structure. */
export function clipboardToText(clipboard: Clipboard, meta: FlowGraph['meta']): string | null {
  const chains = chainsOf(clipboard);
  if (chains.length === 0) return null;
  // Loose pieces of a selection are pasted one after the other.
  const links: GraphEdge[] = [];
  let previous = START_NODE_ID;
  for (const [entry, exit] of chains) {
    links.push(makeEdge(previous, entry));
    previous = exit;
  }
  links.push(makeEdge(previous, END_NODE_ID));
  const graph: FlowGraph = {
    meta: { irVersion: 1, id: 'clipboard', name: 'Clipboard' },
    nodes: [
      { id: START_NODE_ID, kind: 'start', position: { x: 0, y: -100 } },
      ...clipboard.nodes,
      { id: END_NODE_ID, kind: 'end', position: { x: 0, y: 100_000 } },
    ],
    edges: [...clipboard.edges, ...links],
  };
  const compiled = graphToFlow(graph, { structureOnly: true });
  if (!compiled.ok) return null;
  const tools: Record<string, Json> = {};
  for (const name of toolNamesOf(clipboard.nodes)) {
    const tool = meta.tools?.[name];
    if (tool !== undefined) tools[name] = tool;
  }
  const doc = { kind: CLIPBOARD_KIND, irVersion: 1, steps: compiled.flow.steps, tools };
  return JSON.stringify(doc, null, 2);
}

/** The steps a pasted text holds, or why it holds none. */
export function clipboardFromText(text: string): { ok: true; pasted: PastedSteps } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, error: 'the clipboard holds no Weft steps (it is not JSON)' };
  }
  let steps: unknown;
  let tools: unknown;
  if (Array.isArray(parsed)) steps = parsed;
  else if (isRecord(parsed) && Array.isArray(parsed.steps)) ({ steps, tools } = parsed);
  else if (isRecord(parsed) && typeof parsed.type === 'string') steps = [parsed];
  const list = Array.isArray(steps) ? steps : [];
  const bad = list.findIndex((step) => !isRecord(step) || typeof step.id !== 'string' || typeof step.type !== 'string');
  if (list.length === 0 || bad >= 0) {
    const why = list.length === 0 ? 'no `steps`' : `steps[${bad}] has no string id and type`;
    return { ok: false, error: `the clipboard holds no Weft steps (${why})` };
  }
  let graph: FlowGraph;
  try {
    graph = flowToGraph({ irVersion: 1, id: 'clipboard', name: 'Clipboard', steps: list } as unknown as Flow);
  } catch (error) {
    return { ok: false, error: `the clipboard's steps cannot be drawn: ${(error as Error).message}` };
  }
  const outside = (id: string) => id === START_NODE_ID || id === END_NODE_ID;
  return {
    ok: true,
    pasted: {
      clipboard: {
        nodes: graph.nodes.filter((node) => !outside(node.id)),
        edges: graph.edges.filter((edge) => !outside(edge.source) && !outside(edge.target)),
      },
      tools: isRecord(tools) ? (tools as Record<string, Json>) : {},
    },
  };
}
