import { type Flow, type FlowGraph, flowToGraph, graphToFlow } from '@weft/engine';
import { describe, expect, it, vi } from 'vitest';
import {
  addBranchCase,
  addElse,
  addParallelBranch,
  parallelBranches,
  removeBranchCase,
  removeElse,
  removeParallelBranch,
  renameParallelBranch,
} from './arms.ts';
import { copyNodes, pasteNodes } from './clipboard.ts';
import { emptyHistory, record, redo, undo } from './history.ts';
import { autoLayout, elkLayout, simpleLayout } from './layout.ts';
import { renameStep } from './rename.ts';

const flow = {
  irVersion: 1,
  id: 'demo',
  name: 'Demo',
  steps: [
    { id: 'ask', type: 'llm', model: 'mock:echo', prompt: '{{ input.text }}' },
    {
      id: 'fan',
      type: 'parallel',
      branches: {
        a: [{ id: 'left', type: 'transform', value: '=steps.ask.output.text' }],
        b: [{ id: 'right', type: 'transform', value: '=1' }],
      },
    },
    {
      id: 'pick',
      type: 'branch',
      cases: [
        { when: '=true', steps: [{ id: 'yes', type: 'transform', value: '=1' }] },
        { when: '=false', steps: [{ id: 'no', type: 'transform', value: '=2' }] },
      ],
      else: [{ id: 'other', type: 'transform', value: '=3' }],
    },
    { id: 'each', type: 'map', items: '=[1, 2]', steps: [{ id: 'inner', type: 'transform', value: '=steps.ask' }] },
  ],
  output: '=steps.ask.output',
} as unknown as Flow;

const graph = () => flowToGraph(flow);
const compiles = (g: FlowGraph) => {
  const result = graphToFlow(g);
  expect(result.ok ? [] : result.errors).toEqual([]);
  if (!result.ok) throw new Error('does not compile');
  return result.flow;
};
const ok = <T extends { ok: boolean }>(result: T) => {
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result as Extract<T, { ok: true }>;
};

describe('history', () => {
  it('undoes and redoes; a new edit drops the redo stack', () => {
    const a = graph();
    const b = { ...a, nodes: a.nodes.slice(1) };
    const c = { ...a, nodes: a.nodes.slice(2) };
    let history = record(record(emptyHistory(), a), b);
    const back = undo(history, c);
    expect(back?.graph).toBe(b);
    history = back?.history ?? history;
    const forward = redo(history, b);
    expect(forward?.graph).toBe(c);
    expect(record(history, b).future).toEqual([]);
    expect(undo(emptyHistory(), a)).toBeNull();
    expect(redo(emptyHistory(), a)).toBeNull();
  });
});

describe('renameStep', () => {
  it('renames a step, its edges and references', () => {
    const next = ok(renameStep(graph(), 'ask', 'question')).graph;
    const built = compiles(next);
    expect(built.steps[0]?.id).toBe('question');
    expect(JSON.stringify(built)).not.toMatch(/steps\.ask\b/);
    expect(built.output).toBe('=steps.question.output');
    expect(next.edges.every((edge) => edge.id.includes(edge.source) && edge.id.includes(edge.target))).toBe(true);
  });

  it('renames a fan-out with its join node and a container with its body parent', () => {
    let next = ok(renameStep(graph(), 'fan', 'fork')).graph;
    expect(next.nodes.some((node) => node.id === 'fork/join')).toBe(true);
    next = ok(renameStep(next, 'pick', 'choose')).graph;
    expect(next.nodes.some((node) => node.id === 'choose/merge')).toBe(true);
    next = ok(renameStep(next, 'each', 'every')).graph;
    expect(next.nodes.find((node) => node.id === 'inner')?.parentId).toBe('every');
    const built = compiles(next);
    expect(built.steps.map((step) => step.id)).toEqual(['ask', 'fork', 'choose', 'every']);
  });

  it('refuses a taken or invalid id', () => {
    expect(renameStep(graph(), 'ask', 'left').ok).toBe(false);
    expect(renameStep(graph(), 'ask', '9x').ok).toBe(false);
    expect(renameStep(graph(), 'fan/join', 'x').ok).toBe(false);
  });
});

describe('parallel branches', () => {
  it('adds, renames and removes branches and still compiles', () => {
    let g = ok(addParallelBranch(graph(), 'fan')).graph;
    expect(parallelBranches(g, 'fan')).toEqual(['a', 'b', 'c']);
    g = ok(renameParallelBranch(g, 'fan', 'a', 'first')).graph;
    let built = compiles(g);
    const fan = built.steps[1] as unknown as { branches: Record<string, { id: string }[]> };
    expect(Object.keys(fan.branches)).toEqual(['first', 'b', 'c']);
    expect(fan.branches.first?.[0]?.id).toBe('left');
    expect(renameParallelBranch(g, 'fan', 'b', 'c').ok).toBe(false);
    g = ok(removeParallelBranch(g, 'fan', 'first')).graph;
    expect(g.nodes.some((node) => node.id === 'left')).toBe(false);
    g = ok(removeParallelBranch(ok(removeParallelBranch(g, 'fan', 'b')).graph, 'fan', 'c')).graph;
    built = compiles(g);
    expect((built.steps[1] as unknown as { branches: object }).branches).toEqual({});
    g = ok(addParallelBranch(g, 'fan', 'only')).graph;
    expect(Object.keys((compiles(g).steps[1] as unknown as { branches: object }).branches)).toEqual(['only']);
  });
});

describe('branch cases', () => {
  it('adds and removes cases (renumbering handles) and the else arm', () => {
    let g = ok(addBranchCase(graph(), 'pick', '=input.x')).graph;
    let pick = compiles(g).steps[2] as unknown as {
      cases: { when: string; steps: { id: string }[] }[];
      else?: unknown;
    };
    expect(pick.cases.map((c) => c.when)).toEqual(['=true', '=false', '=input.x']);
    g = ok(removeBranchCase(g, 'pick', 0)).graph;
    expect(g.nodes.some((node) => node.id === 'yes')).toBe(false);
    pick = compiles(g).steps[2] as unknown as typeof pick;
    expect(pick.cases.map((c) => [c.when, c.steps.map((s) => s.id)])).toEqual([
      ['=false', ['no']],
      ['=input.x', []],
    ]);
    g = ok(removeElse(g, 'pick')).graph;
    pick = compiles(g).steps[2] as unknown as typeof pick;
    expect(pick.else).toBeUndefined();
    g = ok(addElse(g, 'pick')).graph;
    expect((compiles(g).steps[2] as unknown as typeof pick).else).toEqual([]);
    g = ok(removeBranchCase(g, 'pick', 1)).graph;
    expect(removeBranchCase(g, 'pick', 0).ok).toBe(false);
  });
});

describe('copy/paste', () => {
  it('pastes a step with a fresh id and offset position', () => {
    const g = graph();
    const clip = copyNodes(g, ['ask', '@start']);
    expect(clip?.nodes.map((node) => node.id)).toEqual(['ask']);
    const pasted = pasteNodes(g, clip!, { x: 40, y: 40 });
    expect(pasted.ids).toEqual(['ask_2']);
    const original = g.nodes.find((node) => node.id === 'ask')!;
    expect(pasted.graph.nodes.find((node) => node.id === 'ask_2')?.position).toEqual({
      x: original.position.x + 40,
      y: original.position.y + 40,
    });
    expect(pasteNodes(pasted.graph, clip!).ids).toEqual(['ask_3']);
  });

  it('pastes a fan-out with its arms and join, and a map with its body; wired in, it compiles', () => {
    const g = graph();
    const clip = copyNodes(g, ['fan', 'left', 'each'])!;
    const pasted = pasteNodes(g, clip);
    expect(pasted.ids.sort()).toEqual(
      ['each_2', 'fan/join', 'fan_2', 'fan_2/join', 'inner_2', 'left_2'].filter((id) => id !== 'fan/join').sort(),
    );
    const next = pasted.graph;
    // `right` was not copied: its arm is pasted empty.
    expect(parallelBranches(next, 'fan_2')).toEqual(['a', 'b']);
    expect(next.nodes.find((node) => node.id === 'inner_2')?.parentId).toBe('each_2');
    // Wire the pasted steps in after `each`, before the end.
    const edges = next.edges.filter((edge) => !(edge.source === 'each' && edge.target === '@end'));
    const wired: FlowGraph = {
      ...next,
      edges: [
        ...edges,
        { id: 'each->fan_2', source: 'each', target: 'fan_2' },
        { id: 'fan_2/join->each_2', source: 'fan_2/join', target: 'each_2' },
        { id: 'each_2->@end', source: 'each_2', target: '@end' },
      ],
    };
    const built = compiles(wired);
    expect(built.steps.map((step) => step.id)).toEqual(['ask', 'fan', 'pick', 'each', 'fan_2', 'each_2']);
  });

  it('renames references among pasted steps only', () => {
    const g = graph();
    const both = pasteNodes(g, copyNodes(g, ['each', 'ask'])!).graph;
    expect(both.nodes.find((node) => node.id === 'inner_2')?.config?.value).toBe('=steps.ask_2');
    const alone = pasteNodes(g, copyNodes(g, ['each'])!).graph;
    expect(alone.nodes.find((node) => node.id === 'inner_2')?.config?.value).toBe('=steps.ask');
  });
});

describe('auto-layout', () => {
  it('lays out top to bottom with elk, containers around their children, and still compiles', async () => {
    const laid = await elkLayout(graph());
    const y = (id: string) => laid.nodes.find((node) => node.id === id)?.position.y ?? Number.NaN;
    expect(y('@start')).toBeLessThan(y('ask'));
    expect(y('ask')).toBeLessThan(y('fan'));
    expect(y('fan')).toBeLessThan(y('left'));
    expect(y('left')).toBeLessThan(y('fan/join'));
    expect(y('each')).toBeLessThan(y('@end'));
    const each = laid.nodes.find((node) => node.id === 'each')!;
    const inner = laid.nodes.find((node) => node.id === 'inner')!;
    expect(inner.position.y).toBeGreaterThanOrEqual(50);
    expect(each.size!.height).toBeGreaterThan(inner.position.y);
    const built = compiles(laid);
    expect(built.steps.map((step) => step.id)).toEqual(['ask', 'fan', 'pick', 'each']);
    // With elk working, autoLayout is the elk layout itself (not the fallback).
    expect(await autoLayout(graph())).toEqual(laid);
  });

  it('falls back to the simple layout, which keeps a broken graph as it is', () => {
    const g = graph();
    const moved = { ...g, nodes: g.nodes.map((node) => ({ ...node, position: { x: 0, y: 0 } })) };
    const laid = simpleLayout(moved);
    expect(laid.nodes.find((node) => node.id === 'ask')?.position).toEqual(
      g.nodes.find((node) => node.id === 'ask')?.position,
    );
    const broken = { ...moved, edges: moved.edges.filter((edge) => edge.target !== '@end') };
    expect(simpleLayout(broken)).toBe(broken);
  });

  it('uses the simple layout when elk fails', async () => {
    // A fresh copy of layout.ts whose elk (loaded on first use) rejects every layout.
    vi.resetModules();
    vi.doMock('elkjs/lib/elk.bundled.js', () => ({
      default: class {
        layout(): Promise<never> {
          return Promise.reject(new Error('elk failed'));
        }
      },
    }));
    try {
      const withFailingElk = await import('./layout.ts');
      const g = graph();
      const moved = { ...g, nodes: g.nodes.map((node) => ({ ...node, position: { x: 0, y: 0 } })) };
      await expect(withFailingElk.elkLayout(moved)).rejects.toThrow('elk failed');
      const laid = await withFailingElk.autoLayout(moved);
      expect(laid).toEqual(simpleLayout(moved));
      expect(laid.nodes.find((node) => node.id === 'ask')?.position).toEqual(
        g.nodes.find((node) => node.id === 'ask')?.position,
      );
    } finally {
      vi.doUnmock('elkjs/lib/elk.bundled.js');
      vi.resetModules();
    }
  });
});
