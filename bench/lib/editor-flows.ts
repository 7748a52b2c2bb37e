/**
 * bench/editor.ts's generated flows: `steps` steps in all (containers and what they hold count),
 * with no saved positions, so the editor lays them out as it would any flow written by hand.
 *
 * - sequential: one chain of plain steps (transform, code, llm in turn);
 * - mixed: the same chain with a container every tenth top-level step — map (holding a branch), loop,
 *   parallel and branch in turn — so nesting, fan-out arms and merge/join nodes are all drawn.
 */
import type { Json } from '../../packages/engine/src/index.ts';

export type FlowShape = 'sequential' | 'mixed';

type Step = Record<string, Json>;

class StepIds {
  count = 0;
  next(): string {
    return `s${this.count++}`;
  }
}

function leaf(ids: StepIds): Step {
  const id = ids.next();
  switch (ids.count % 3) {
    case 0:
      return { id, type: 'transform', value: `=input` };
    case 1:
      return { id, type: 'code', source: 'return args;', args: {} };
    default:
      return { id, type: 'llm', model: 'mock:echo', prompt: `Step ${id}: {{ input.text }}` };
  }
}

const CONTAINERS = ['map', 'loop', 'parallel', 'branch'] as const;

function container(kind: (typeof CONTAINERS)[number], ids: StepIds, nested: boolean): Step {
  const id = ids.next();
  switch (kind) {
    case 'map':
      return {
        id,
        type: 'map',
        items: '=[1, 2]',
        steps: [leaf(ids), nested ? container('branch', ids, false) : leaf(ids), leaf(ids)],
      };
    case 'loop':
      return { id, type: 'loop', while: '=false', maxIterations: 2, steps: [leaf(ids), leaf(ids)] };
    case 'parallel':
      return { id, type: 'parallel', branches: { a: [leaf(ids), leaf(ids)], b: [leaf(ids)] } };
    case 'branch':
      return { id, type: 'branch', cases: [{ when: '=true', steps: [leaf(ids)] }], else: [leaf(ids), leaf(ids)] };
  }
}

/** A flow document of `steps` steps, id `bench-editor-<shape>-<steps>`. */
export function generatedFlow(shape: FlowShape, steps: number): Json {
  const ids = new StepIds();
  const top: Step[] = [];
  let containers = 0;
  while (ids.count < steps) {
    // A container takes up to 8 steps: only while that many are left, so the total is exact.
    const room = steps - ids.count >= 8;
    if (shape === 'mixed' && room && top.length % 10 === 0) {
      top.push(container(CONTAINERS[containers % CONTAINERS.length]!, ids, true));
      containers++;
    } else top.push(leaf(ids));
  }
  return {
    irVersion: 1,
    id: flowIdOf(shape, steps),
    name: `${steps} steps, ${shape}`,
    steps: top,
  };
}

export function flowIdOf(shape: FlowShape, steps: number): string {
  return `bench-editor-${shape}-${steps}`;
}
