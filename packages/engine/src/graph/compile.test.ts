import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Flow } from '../ir/flow.ts';
import type { Step } from '../steps/registry.ts';
import { validateFlow } from '../validate/validate.ts';
import { flowToGraph, graphToFlow } from './compile.ts';
import { END_NODE_ID, START_NODE_ID } from './ids.ts';
import type { FlowGraph } from './types.ts';

const examplesDir = join(import.meta.dirname, '../../../../examples');
const exampleFiles = readdirSync(examplesDir).filter(
  (file) => file.endsWith('.json') && !file.endsWith('.fixtures.json') && !file.endsWith('.input.json'),
);

function withoutUi(flow: Flow): Omit<Flow, 'ui'> {
  const { ui: _ui, ...rest } = flow;
  return rest;
}

function roundTrip(flow: Flow, hostTools?: string[]): Flow {
  const result = graphToFlow(flowToGraph(flow), hostTools ? { hostTools } : {});
  if (!result.ok) throw new Error(`did not compile: ${JSON.stringify(result.errors, null, 2)}`);
  return result.flow;
}

const flowOf = (steps: Step[], extra: Partial<Flow> = {}): Flow => ({
  irVersion: 1,
  id: 'f',
  name: 'F',
  steps,
  ...extra,
});
const t = (id: string, value: unknown = 1): Step => ({ id, type: 'transform', value });

describe('round trip of every example', () => {
  it('finds the examples', () => expect(exampleFiles.length).toBeGreaterThan(5));
  for (const file of exampleFiles) {
    it(file, () => {
      const doc = JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as Flow;
      expect(validateFlow(doc).ok).toBe(true);
      const back = roundTrip(doc);
      expect(withoutUi(back)).toEqual(withoutUi(doc));
      // And a second pass, now with the positions the first pass saved, is stable.
      const again = flowToGraph(back);
      expect(again).toEqual(flowToGraph(back));
      expect(withoutUi(roundTrip(back))).toEqual(withoutUi(doc));
    });
  }
});

describe('one test per step type', () => {
  const cases: [string, Step[], Partial<Flow>?][] = [
    ['llm', [{ id: 'a', type: 'llm', model: 'mock:echo', prompt: 'hi {{ input.x }}', maxSteps: 2 }]],
    [
      'tool',
      [{ id: 'a', type: 'tool', tool: 'add', args: { x: '=1' } }],
      { tools: { add: { description: 'adds', parameters: { type: 'object' }, source: 'return 1' } } },
    ],
    ['code', [{ id: 'a', type: 'code', source: 'return 1', args: { y: 2 } }]],
    ['http', [{ id: 'a', type: 'http', method: 'POST', url: 'https://x', body: { a: '=1' }, timeout: '5s' }]],
    ['transform', [t('a', { b: '=1' }), t('b', '=steps.a.output')]],
    [
      'branch',
      [
        {
          id: 'b',
          type: 'branch',
          cases: [
            { when: '=true', steps: [t('x'), t('y')] },
            { when: '=false', steps: [] },
          ],
          else: [t('z')],
        },
        t('after'),
      ],
    ],
    ['parallel', [{ id: 'p', type: 'parallel', branches: { zed: [t('x')], alpha: [t('y'), t('w')], empty: [] } }]],
    ['map', [{ id: 'm', type: 'map', items: '=[1,2]', concurrency: 2, steps: [t('x', '=item'), t('y')] }, t('z')]],
    ['loop', [{ id: 'l', type: 'loop', while: '=iteration < 2', maxIterations: 3, steps: [t('x')] }]],
    ['approval', [{ id: 'a', type: 'approval', prompt: 'ok?', timeout: '1h', onTimeout: 'reject' }]],
    ['spawn', [{ id: 'a', type: 'spawn', flow: 'other@2', input: { q: '=1' } }]],
    [
      'sleep',
      [{ id: 'a', type: 'sleep', duration: '5s', retry: { maxAttempts: 2, backoff: 'fixed', initialDelay: '1s' } }],
    ],
    ['fail', [{ id: 'a', type: 'fail', message: 'nope', name: 'Stop' }]],
  ];
  it('covers all 13 step types', () => expect(cases.length).toBe(13));
  for (const [type, steps, extra] of cases) {
    it(type, () => {
      const flow = flowOf(steps, extra);
      expect(validateFlow(flow).ok).toBe(true);
      const graph = flowToGraph(flow);
      const node = graph.nodes.find((n) => n.id === steps[0]?.id);
      expect(node?.stepType).toBe(type);
      expect(node?.config).not.toHaveProperty('id');
      expect(node?.config).not.toHaveProperty('type');
      expect(withoutUi(roundTrip(flow))).toEqual(flow);
    });
  }

  it('draws a branch with a merge node, case handles and kept `when`s', () => {
    const graph = flowToGraph(
      flowOf([
        {
          id: 'b',
          type: 'branch',
          cases: [
            { when: '=true', steps: [t('x')] },
            { when: '=false', steps: [] },
          ],
        },
      ]),
    );
    expect(graph.nodes.find((n) => n.id === 'b')?.config).toEqual({ cases: [{ when: '=true' }, { when: '=false' }] });
    expect(graph.nodes.find((n) => n.id === 'b/merge')?.kind).toBe('merge');
    const handles = graph.edges.filter((e) => e.source === 'b').map((e) => [e.sourceHandle, e.target]);
    expect(handles).toEqual([
      ['case-0', 'x'],
      ['case-1', 'b/merge'],
    ]);
  });

  it('nests container bodies with parentId and relative positions', () => {
    const graph = flowToGraph(flowOf([{ id: 'm', type: 'map', items: '=[]', steps: [t('x'), t('y')] }]));
    const x = graph.nodes.find((n) => n.id === 'x');
    expect(x?.parentId).toBe('m');
    expect(graph.edges).toContainEqual(expect.objectContaining({ source: 'm', target: 'x', sourceHandle: 'body' }));
    expect(graph.edges.some((e) => e.source === 'y')).toBe(false);
    expect(graph.nodes.find((n) => n.id === 'm')?.size?.width).toBeGreaterThan(x?.position.x ?? Infinity);
  });

  it('uses saved positions and saves them back', () => {
    const flow = flowOf([t('a'), t('b')], { ui: { positions: { a: { x: 7, y: 9 } } } });
    const graph = flowToGraph(flow);
    expect(graph.nodes.find((n) => n.id === 'a')?.position).toEqual({ x: 7, y: 9 });
    const back = roundTrip(flow);
    expect((back.ui?.positions as Record<string, unknown> | undefined)?.a).toEqual({ x: 7, y: 9 });
    expect(flowToGraph(back)).toEqual(graph);
  });

  it('lays out steps named after Object.prototype members that have no saved position', () => {
    const flow = flowOf([t('toString'), t('valueOf'), t('b')], { ui: { positions: { b: { x: 1, y: 2 } } } });
    const graph = flowToGraph(flow);
    for (const id of ['toString', 'valueOf']) {
      const { x, y } = graph.nodes.find((n) => n.id === id)!.position;
      expect([typeof x, typeof y]).toEqual(['number', 'number']);
    }
    expect(withoutUi(roundTrip(flow))).toEqual(withoutUi(flow));
  });

  it('a step called start or end does not clash with the start/end nodes', () => {
    const flow = flowOf([t('start'), t('end')]);
    expect(withoutUi(roundTrip(flow))).toEqual(flow);
  });
});

// ---------------------------------------------------------------------------------------------

type Edit = (graph: FlowGraph) => void;
const base = (): Flow =>
  flowOf([
    t('a'),
    { id: 'b', type: 'branch', cases: [{ when: '=true', steps: [t('x')] }], else: [t('y')] },
    { id: 'p', type: 'parallel', branches: { one: [t('p1')], two: [t('p2')] } },
    { id: 'm', type: 'map', items: '=[1]', steps: [t('m1'), t('m2')] },
    t('z'),
  ]);
const retarget = (graph: FlowGraph, id: string, target: string) => {
  const edge = graph.edges.find((e) => e.id === id);
  if (!edge) throw new Error(`no edge ${id}`);
  edge.target = target;
};
const drop = (graph: FlowGraph, id: string) => {
  const before = graph.edges.length;
  graph.edges = graph.edges.filter((e) => e.id !== id);
  if (graph.edges.length === before) throw new Error(`no edge ${id}`);
};

describe('graphs that cannot compile report the node at fault', () => {
  const table: [string, Edit, string | null, RegExp][] = [
    ['a fan-out arm reaching end', (g) => retarget(g, 'p1->p/join', END_NODE_ID), 'p', /arm of 'p' reaches '@end'/],
    [
      'a fan-out arm reaching another join',
      (g) => retarget(g, 'x->b/merge', 'p/join'),
      'b',
      /arm of 'b' reaches 'p\/join'/,
    ],
    ['a branch arm that stops', (g) => drop(g, 'y->b/merge'), 'y', /never re-joins at 'b\/merge'/],
    ['a case without an arm', (g) => drop(g, 'b:case-0->x'), 'b', /case 0 of branch 'b' has no arm/],
    [
      'a dangling edge',
      (g) => g.edges.push({ id: 'bad', source: 'a', target: 'ghost' }),
      'a',
      /dangling edge 'bad': no target 'ghost'/,
    ],
    ['a node with no incoming edge', (g) => drop(g, 'a->b'), 'b', /'b' has no incoming edge/],
    [
      'two outgoing edges where one is expected',
      (g) => g.edges.push({ id: 'extra', source: 'a', target: 'z' }),
      'a',
      /'a' has 2 outgoing edges/,
    ],
    ['a cycle outside a loop', (g) => retarget(g, 'm->z', 'a'), 'a', /cycle outside a loop: 'm' leads back to 'a'/],
    [
      'an edge crossing a container boundary',
      (g) => g.edges.push({ id: 'cross', source: 'm2', target: 'z' }),
      'z',
      /crosses a container boundary/,
    ],
    ['a missing start', (g) => (g.nodes = g.nodes.filter((n) => n.kind !== 'start')), null, /no start node/],
    ['a missing end', (g) => (g.nodes = g.nodes.filter((n) => n.kind !== 'end')), null, /no end node/],
    [
      'a missing merge node',
      (g) => (g.nodes = g.nodes.filter((n) => n.id !== 'b/merge')),
      'b',
      /branch 'b' has no merge node 'b\/merge'/,
    ],
    [
      'a step node with an unknown type',
      (g) => {
        const node = g.nodes.find((n) => n.id === 'z');
        if (node) node.stepType = 'nope' as never;
      },
      'z',
      /no known step type/,
    ],
    [
      'a flow-level validation problem mapped to the node',
      (g) => {
        const node = g.nodes.find((n) => n.id === 'm');
        if (node?.config) node.config.items = 'not-an-expr';
      },
      'm',
      /steps\[3\]\.items: must be an expression/,
    ],
  ];

  it('the base graph compiles', () => expect(graphToFlow(flowToGraph(base())).ok).toBe(true));
  for (const [name, edit, nodeId, message] of table) {
    it(name, () => {
      const graph = flowToGraph(base());
      edit(graph);
      const result = graphToFlow(graph);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toContainEqual(
        expect.objectContaining({ nodeId, message: expect.stringMatching(message) }),
      );
    });
  }

  it('reports every problem at once', () => {
    const graph = flowToGraph(base());
    drop(graph, 'b:case-0->x');
    graph.edges.push({ id: 'bad', source: 'ghost', target: 'z' });
    const result = graphToFlow(graph);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const at = result.errors.map((error) => error.nodeId);
    expect(at).toContain('b');
    expect(at).toContain('x');
    expect(at).toContain('z');
  });

  it('never throws on garbage', () => {
    const graph: FlowGraph = {
      meta: { irVersion: 1, id: 'f', name: 'F' },
      nodes: [
        { id: START_NODE_ID, kind: 'start', position: { x: 0, y: 0 } },
        { id: 'q', kind: 'step', stepType: 'branch', position: { x: 0, y: 0 } },
        { id: 'q/merge', kind: 'join', parentId: 'nowhere', position: { x: 0, y: 0 } },
      ],
      edges: [
        { id: 'e1', source: START_NODE_ID, target: 'q' },
        { id: 'e1', source: 'q', target: START_NODE_ID, sourceHandle: 'case-7' },
      ],
    };
    const result = graphToFlow(graph);
    expect(result.ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------

type Shape =
  | { kind: 't' }
  | { kind: 'branch'; cases: Shape[][]; else: Shape[] | null }
  | { kind: 'parallel'; branches: Shape[][] }
  | { kind: 'map' | 'loop'; body: Shape[] };

const shapeArb = fc.letrec<{ step: Shape; list: Shape[] }>((tie) => ({
  step: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Shape>({ kind: 't' }),
    fc.record({
      kind: fc.constant('branch' as const),
      cases: fc.array(tie('list') as fc.Arbitrary<Shape[]>, { minLength: 1, maxLength: 3 }),
      else: fc.option(tie('list') as fc.Arbitrary<Shape[]>),
    }),
    fc.record({
      kind: fc.constant('parallel' as const),
      branches: fc.array(tie('list') as fc.Arbitrary<Shape[]>, { maxLength: 3 }),
    }),
    fc.record({ kind: fc.constantFrom('map' as const, 'loop' as const), body: tie('list') as fc.Arbitrary<Shape[]> }),
  ),
  list: fc.array(tie('step') as fc.Arbitrary<Shape>, { maxLength: 3 }),
}));

function buildFlow(shapes: Shape[]): Flow {
  let next = 0;
  const list = (items: Shape[]): Step[] => items.map(step);
  const step = (shape: Shape): Step => {
    const id = `s${next++}`;
    switch (shape.kind) {
      case 't':
        return { id, type: 'transform', value: next };
      case 'branch':
        return {
          id,
          type: 'branch',
          cases: shape.cases.map((arm, index) => ({ when: `=${index % 2 === 0}`, steps: list(arm) })),
          ...(shape.else ? { else: list(shape.else) } : {}),
        };
      case 'parallel':
        return {
          id,
          type: 'parallel',
          branches: Object.fromEntries(shape.branches.map((arm, index) => [`b${(index * 7) % 5}_${index}`, list(arm)])),
        };
      case 'map':
        return { id, type: 'map', items: '=[1, 2]', steps: list(shape.body) };
      case 'loop':
        return { id, type: 'loop', while: '=iteration < 1', steps: list(shape.body) };
    }
  };
  return flowOf(list(shapes));
}

describe('property: generated nested flows round-trip', () => {
  it('graphToFlow(flowToGraph(flow)) equals flow', () => {
    fc.assert(
      fc.property(fc.array(shapeArb.step, { minLength: 1, maxLength: 4 }), (shapes) => {
        const flow = buildFlow(shapes);
        expect(validateFlow(flow).ok).toBe(true);
        const back = roundTrip(flow);
        expect(withoutUi(back)).toEqual(flow);
        expect(withoutUi(roundTrip(back))).toEqual(flow);
      }),
      { numRuns: 300 },
    );
  });
});
