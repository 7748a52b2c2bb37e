/**
 * The shapes flow-arbitrary.ts generates (leaves and the containers around them) and how a
 * shape becomes a valid IR v1 flow: ids in document order, each map's item name threaded into
 * the expressions of its body.
 */
import type { Flow, FlowTool, Step } from '@weft/engine';

/** What may be read where a leaf sits. */
export type Scope = 'top' | 'map' | 'loop';

/** A leaf step without its id. */
export type LeafStep = { type: string } & Record<string, unknown>;

/** A leaf for each scope it may land in (generated up front, so shrinking stays meaningful). */
export type Leaf = Record<Scope, LeafStep>;

export type Shape =
  | { kind: 'leaf'; leaf: Leaf; extras: Extras }
  | { kind: 'branch'; cases: Shape[][]; else: Shape[] | null; whens: string[] }
  | { kind: 'parallel'; branches: Shape[][] }
  | { kind: 'map' | 'loop'; body: Shape[]; concurrency: number | null; while: string; as: string | null };

/** The base fields every step may have. */
export interface Extras {
  name: string | null;
  retry: { maxAttempts: number; backoff: 'fixed' | 'exponential'; initialDelay: string } | null;
  timeout: string | null;
}

/** The flow's own fields. */
export interface Meta {
  name: string;
  description: string | null;
  input: Record<string, unknown> | null;
  tools: Record<string, FlowTool> | null;
  output: 'none' | 'expr' | 'object';
}

/** Stand-ins, in expressions generated for a map's body, for its item's name and the enclosing map's. */
export const ITEM = 'ITEM_NAME';
export const OUTER_ITEM = 'OUTER_ITEM_NAME';

/** `value` with the stand-ins replaced by the names of the maps around it (innermost last). */
export function withItemNames(value: unknown, names: readonly string[]): unknown {
  const inner = names.at(-1) ?? 'item';
  const outer = names.at(-2) ?? inner;
  if (typeof value === 'string') return value.replaceAll(OUTER_ITEM, outer).replaceAll(ITEM, inner);
  if (Array.isArray(value)) return value.map((v) => withItemNames(v, names));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, withItemNames(v, names)]));
  }
  return value;
}

/** `check()`, or false where it throws: the text does not compile. */
export function buildFlow(shapes: Shape[], meta: Meta): Flow {
  let next = 0;
  /** `names`: the item names of the maps around, innermost last. */
  const list = (items: Shape[], scope: Scope, names: string[]): Step[] =>
    items.map((shape) => step(shape, scope, names));
  const step = (shape: Shape, scope: Scope, names: string[]): Step => {
    const id = `s${next++}`;
    switch (shape.kind) {
      case 'leaf': {
        const { name, retry, timeout } = shape.extras;
        const { tools, ...leaf } = withItemNames(shape.leaf[scope], names) as LeafStep;
        return {
          id,
          ...leaf,
          ...(tools !== undefined && meta.tools !== null ? { tools } : {}),
          ...(name === null ? {} : { name }),
          ...(retry === null ? {} : { retry }),
          // An approval's `timeout` is its wait, already chosen by the leaf.
          ...(timeout === null || leaf.type === 'approval' ? {} : { timeout }),
        } as Step;
      }
      case 'branch':
        return {
          id,
          type: 'branch',
          cases: shape.cases.map((arm, index) => ({ when: shape.whens[index]!, steps: list(arm, scope, names) })),
          ...(shape.else ? { else: list(shape.else, scope, names) } : {}),
        };
      case 'parallel':
        return {
          id,
          type: 'parallel',
          branches: Object.fromEntries(
            shape.branches.map((arm, index) => [`b${(index * 7) % 5}_${index}`, list(arm, scope, names)]),
          ),
        };
      case 'map':
        return {
          id,
          type: 'map',
          items: '=[{ value: 1 }, { value: 2 }]',
          ...(shape.as === null ? {} : { as: shape.as }),
          ...(shape.concurrency === null ? {} : { concurrency: shape.concurrency }),
          steps: list(shape.body, 'map', [...names, shape.as ?? 'item']),
        };
      case 'loop':
        return { id, type: 'loop', while: shape.while, maxIterations: 3, steps: list(shape.body, 'loop', names) };
    }
  };
  const steps = list(shapes, 'top', []);
  const last = steps.at(-1)!.id;
  return {
    irVersion: 1,
    id: 'generated',
    name: meta.name,
    ...(meta.description === null ? {} : { description: meta.description }),
    ...(meta.input === null ? {} : { input: meta.input }),
    ...(meta.tools === null ? {} : { tools: meta.tools }),
    steps,
    ...(meta.output === 'expr' ? { output: `=steps.${last}.output` } : {}),
    ...(meta.output === 'object' ? { output: { last: `=steps.${last}.output`, name: '=input.name' } } : {}),
  };
}
