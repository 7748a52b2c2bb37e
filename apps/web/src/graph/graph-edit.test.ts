import { type Flow, type FlowGraph, flowToGraph, graphToFlow, STEP_TYPES, type StepType } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { appendStep, edgeLabel, insertOnEdge, removeNodes } from './graph-edit.ts';
import { starterFlow } from './starter.ts';
import { STEP_CATALOG } from './step-catalog.ts';

const starter = () => flowToGraph(starterFlow('demo', 'Demo') as unknown as Flow);

describe('palette edits', () => {
  it('offers every step type', () => {
    expect(STEP_CATALOG.map((info) => info.type).sort()).toEqual([...STEP_TYPES].sort());
  });

  it.each(STEP_TYPES.filter((type) => type !== 'tool' && type !== 'spawn'))(
    'appends a %s after the selected step and still compiles',
    (type) => {
      const { graph, id } = appendStep(starter(), type, 'reply');
      const result = graphToFlow(graph);
      expect(result.ok ? [] : result.errors).toEqual([]);
      expect(result.ok && result.flow.steps.map((step) => step.id)).toEqual(['reply', id]);
    },
  );

  it('appends into an empty map body, then removes the map with its body', () => {
    const withMap = appendStep(starter(), 'map', 'reply');
    const inner = appendStep(withMap.graph, 'transform', withMap.id);
    expect(inner.graph.nodes.find((node) => node.id === inner.id)?.parentId).toBe(withMap.id);
    const result = graphToFlow(inner.graph);
    expect(result.ok ? [] : result.errors).toEqual([]);
    const removed = removeNodes(inner.graph, [withMap.id]);
    expect(removed.nodes.map((node) => node.id)).not.toContain(inner.id);
  });
});

describe('insert on an edge', () => {
  const compile = (graph: FlowGraph) => {
    const result = graphToFlow(graph);
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (!result.ok) throw new Error('does not compile');
    return result.flow as unknown as { steps: Record<string, unknown>[] };
  };
  const insert = (graph: FlowGraph, type: StepType, edgeId: string) => {
    const done = insertOnEdge(graph, type, edgeId);
    if (!done) throw new Error(`no edge ${edgeId}`);
    return done;
  };
  const edgeFrom = (graph: FlowGraph, source: string, handle?: string) => {
    const edge = graph.edges.find((e) => e.source === source && e.sourceHandle === handle);
    if (!edge) throw new Error(`no edge from ${source} (${handle})`);
    return edge;
  };

  it('fills both empty branches of a parallel, keeping the branch names and their order', () => {
    const withParallel = appendStep(starter(), 'parallel', 'reply').graph;
    const a = edgeFrom(withParallel, 'parallel', 'a');
    expect(edgeLabel(withParallel, a)).toBe('Edge from parallel (branch a) to parallel/join');
    const left = insert(withParallel, 'code', a.id);
    const right = insert(left.graph, 'code', edgeFrom(left.graph, 'parallel', 'b').id);
    expect([left.id, right.id]).toEqual(['code', 'code_2']);
    const flow = compile(right.graph);
    expect(flow.steps[1]).toMatchObject({
      id: 'parallel',
      type: 'parallel',
      branches: { a: [{ id: 'code', type: 'code' }], b: [{ id: 'code_2', type: 'code' }] },
    });
    expect(Object.keys((flow.steps[1] as { branches: object }).branches)).toEqual(['a', 'b']);
    // Side by side, not on top of each other.
    const at = (id: string) => right.graph.nodes.find((node) => node.id === id)?.position;
    expect(at('code')?.x).not.toBe(at('code_2')?.x);
    expect(at('code')?.y).toBeLessThan(at('parallel/join')?.y ?? 0);
  });

  it('fills an empty case and the else arm of a branch', () => {
    const withBranch = appendStep(starter(), 'branch', 'reply').graph;
    const yes = insert(withBranch, 'transform', edgeFrom(withBranch, 'branch', 'case-0').id);
    expect(edgeLabel(withBranch, edgeFrom(withBranch, 'branch', 'else'))).toBe(
      'Edge from branch (else) to branch/merge',
    );
    const other = insert(yes.graph, 'code', edgeFrom(yes.graph, 'branch', 'else').id);
    const flow = compile(other.graph);
    expect(flow.steps[1]).toMatchObject({
      id: 'branch',
      cases: [{ steps: [{ id: 'transform', type: 'transform' }] }],
      else: [{ id: 'code', type: 'code' }],
    });
  });

  it('starts a map body (selected empty map) and inserts before its first step on the body edge', () => {
    const withMap = appendStep(starter(), 'map', 'reply');
    const first = appendStep(withMap.graph, 'transform', withMap.id);
    const body = edgeFrom(first.graph, 'map', 'body');
    expect(edgeLabel(first.graph, body)).toBe('Edge from map (body) to transform');
    const before = insert(first.graph, 'code', body.id);
    expect(before.graph.nodes.find((node) => node.id === 'code')?.parentId).toBe('map');
    const flow = compile(before.graph);
    expect(flow.steps[1]).toMatchObject({ id: 'map', steps: [{ id: 'code' }, { id: 'transform' }] });
    // Inside the body, between two steps: still in the map.
    const between = insert(before.graph, 'llm', edgeFrom(before.graph, 'code').id);
    expect(between.graph.nodes.find((node) => node.id === between.id)?.parentId).toBe('map');
    expect(compile(between.graph).steps[1]).toMatchObject({
      steps: [{ id: 'code' }, { id: 'llm' }, { id: 'transform' }],
    });
  });

  it('inserts between two steps, and a fan-out on an edge brings its join along', () => {
    const two = appendStep(starter(), 'transform', 'reply').graph;
    const edge = edgeFrom(two, 'reply');
    expect(edgeLabel(two, edge)).toBe('Edge from reply to transform');
    const mid = insert(two, 'code', edge.id);
    expect(compile(mid.graph).steps.map((step) => step.id)).toEqual(['reply', 'code', 'transform']);
    const fan = insert(mid.graph, 'parallel', edgeFrom(mid.graph, 'code').id);
    expect(compile(fan.graph).steps.map((step) => step.id)).toEqual(['reply', 'code', 'parallel', 'transform']);
    // The step below moved down to make room.
    const y = (graph: FlowGraph, id: string) => graph.nodes.find((node) => node.id === id)?.position.y ?? 0;
    expect(y(fan.graph, 'transform')).toBeGreaterThan(y(fan.graph, 'parallel/join'));
    expect(insertOnEdge(two, 'code', 'nope')).toBeNull();
  });

  it('a parallel with no branches: a step on its plain edge starts branch a', () => {
    const withParallel = appendStep(starter(), 'parallel', 'reply').graph;
    const bare = {
      ...withParallel,
      edges: [
        ...withParallel.edges.filter((edge) => edge.source !== 'parallel'),
        { id: 'plain', source: 'parallel', target: 'parallel/join' },
      ],
    };
    const done = insert(bare, 'code', 'plain');
    expect(compile(done.graph).steps[1]).toMatchObject({ branches: { a: [{ id: 'code' }] } });
  });
});

describe('removing steps', () => {
  it('joins the neighbours of a removed chain step, and empties an arm whose only step goes', () => {
    const empty = removeNodes(starter(), ['reply']);
    expect(empty.edges.map((edge) => [edge.source, edge.target])).toEqual([['@start', '@end']]);
    const withParallel = appendStep(appendStep(empty, 'llm', null).graph, 'parallel', 'llm').graph;
    const branchA = withParallel.edges.find((edge) => edge.sourceHandle === 'a')!;
    const filled = insertOnEdge(withParallel, 'code', branchA.id)!.graph;
    const emptied = removeNodes(filled, ['code']);
    expect(emptied.edges.map((edge) => edge.id).sort()).toEqual(withParallel.edges.map((edge) => edge.id).sort());
    const flow = graphToFlow(emptied);
    expect(flow.ok && flow.flow.steps[1]).toMatchObject({ branches: { a: [], b: [] } });
    // A whole parallel (with its join) goes: llm → end again.
    const gone = removeNodes(filled, ['parallel']);
    expect(gone.edges.map((edge) => [edge.source, edge.target])).toEqual([
      ['@start', 'llm'],
      ['llm', '@end'],
    ]);
  });
});
