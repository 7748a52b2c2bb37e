/**
 * validateFlow is fed whatever an editor, an API client or a file on disk holds. Property:
 * it never throws, and always answers `{ ok: true, flow }` or `{ ok: false, errors }` with
 * every error a `{ stepId: string | null, path: string, message: string }`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Json } from '../json.ts';
import { STEP_TYPES } from '../steps/registry.ts';
import { type ValidateOptions, type ValidationResult, validateFlow } from './validate.ts';

function expectWellFormed(result: ValidationResult): void {
  if (result.ok) {
    expect(result.flow).toBeTypeOf('object');
    expect(Array.isArray(result.flow.steps)).toBe(true);
    return;
  }
  expect(result.errors.length).toBeGreaterThan(0);
  for (const error of result.errors) {
    expect(Object.keys(error).sort()).toEqual(['message', 'path', 'stepId']);
    expect(typeof error.path).toBe('string');
    expect(error.path.length).toBeGreaterThan(0);
    expect(typeof error.message).toBe('string');
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.stepId === null || typeof error.stepId === 'string').toBe(true);
  }
}

function check(doc: unknown, options: ValidateOptions = {}): ValidationResult {
  let result: ValidationResult | undefined;
  expect(() => {
    result = validateFlow(doc, options);
  }).not.toThrow();
  expectWellFormed(result!);
  return result!;
}

/** Valid flows covering every step type and every nesting container. */
const seeds: Json[] = [
  {
    irVersion: 1,
    id: 'everything',
    name: 'Everything',
    input: { type: 'object' },
    tools: {
      shout: { description: 'Shout', parameters: { type: 'object' }, source: 'return args.s.toUpperCase()' },
      find: { description: 'Find', parameters: {}, http: { url: 'https://x/{{ args.q }}', method: 'GET' } },
    },
    steps: [
      {
        id: 'ask',
        type: 'llm',
        model: 'mock:echo',
        system: 'S',
        prompt: 'Hi {{ input.name }}',
        tools: ['shout'],
        maxSteps: 3,
      },
      {
        id: 'more',
        type: 'llm',
        model: 'openai:gpt-4o-mini',
        messages: '=steps.ask.output.messages',
        schema: { type: 'object' },
      },
      { id: 'call', type: 'tool', tool: 'find', args: { q: '=input.q' } },
      { id: 'calc', type: 'code', source: 'return 1', args: { a: '=steps.call.output' }, retry: { maxAttempts: 2 } },
      {
        id: 'get',
        type: 'http',
        method: 'POST',
        url: 'https://api/{{ input.id }}',
        headers: { a: 'b' },
        body: { x: '=input' },
        timeout: '5s',
      },
      { id: 'shape', type: 'transform', value: { a: '=steps.calc.output', b: ['x', '{{ input.q }}'] } },
      {
        id: 'route',
        type: 'branch',
        cases: [
          {
            when: '=input.vip == true',
            steps: [{ id: 'ok', type: 'approval', prompt: 'ok?', timeout: '1h', onTimeout: 'approve' }],
          },
        ],
        else: [{ id: 'nap', type: 'sleep', duration: '1s' }],
      },
      {
        id: 'fan',
        type: 'parallel',
        branches: {
          a: [{ id: 'child', type: 'spawn', flow: 'other@2', input: { x: '=input.x' } }],
          b: [
            {
              id: 'each',
              type: 'map',
              items: '=input.items',
              concurrency: 2,
              steps: [{ id: 'one', type: 'transform', value: '=[item, index]' }],
            },
          ],
        },
      },
      {
        id: 'poll',
        type: 'loop',
        while: '=iteration < 3',
        maxIterations: 5,
        steps: [{ id: 'tick', type: 'transform', value: '=iteration' }],
      },
      { id: 'stop', type: 'fail', message: 'done {{ steps.shape.output.a }}' },
    ],
    output: { answer: '=steps.ask.output.text' },
    ui: { positions: { ask: { x: 0, y: 0 } } },
  },
  { irVersion: 1, id: 'tiny', name: 'Tiny', steps: [{ id: 'a', type: 'transform', value: 1 }] },
];

for (const seed of seeds) {
  const result = validateFlow(seed);
  if (!result.ok) throw new Error(`seed '${(seed as { id: string }).id}' is invalid: ${JSON.stringify(result.errors)}`);
}

type Path = (string | number)[];

function pathsOf(value: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) pathsOf(item, [...at, index], out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...at, key], out);
  }
  return out;
}

function parentOf(doc: Json, path: Path): { parent: Json[] | Record<string, Json>; key: string | number } | undefined {
  if (path.length === 0) return undefined;
  let node: Json = doc;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, Json>)[key]!;
  return { parent: node as Json[] | Record<string, Json>, key: path.at(-1)! };
}

/** Strings an expression field might end up holding: junk, near-misses and hostile input. */
const exprText = fc.oneof(
  fc.string(),
  fc.string().map((s) => `=${s}`),
  fc.string().map((s) => `{{ ${s} }}`),
  fc.constantFrom(
    '=',
    '=steps.',
    '=steps.nope.output',
    '=steps.ask.output.text.',
    '={{ x }}',
    '{{',
    '}}{{',
    '{{ }}',
    '=__proto__',
    '=input.constructor.prototype',
    '=item',
    '=iteration',
    '=args',
    `=${'('.repeat(300)}1${')'.repeat(300)}`,
    `=${'a.'.repeat(3000)}b`,
    `=${'1+'.repeat(6000)}1`,
    '=input?.[0]?.x ?? null',
    '=1 = 2',
    '=x => x',
    '=`template`',
  ),
);

const EXPRESSION_FIELDS = [
  'prompt',
  'system',
  'messages',
  'value',
  'url',
  'items',
  'while',
  'when',
  'message',
  'output',
  'id',
  'type',
  'model',
  'flow',
  'tool',
  'duration',
];

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('replace' as const),
    pick: fc.nat(),
    value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  }),
  fc.record({ kind: fc.constant('duplicate' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('text' as const), pick: fc.nat(), text: exprText }),
  fc.record({
    kind: fc.constant('type' as const),
    pick: fc.nat(),
    type: fc.oneof(fc.constantFrom(...STEP_TYPES), fc.string()),
  }),
  fc.record({
    kind: fc.constant('nest' as const),
    // Mostly shallow; sometimes around and past MAX_STEP_NESTING (100), where the schema would recurse deepest.
    depth: fc.oneof(
      { arbitrary: fc.nat({ max: 6 }), weight: 8 },
      { arbitrary: fc.integer({ min: 95, max: 2000 }), weight: 1 },
    ),
    container: fc.constantFrom('loop', 'branch', 'parallel', 'map'),
  }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function nestSteps(steps: Json, depth: number, container: string): Json {
  let current = steps;
  for (let level = 0; level < depth; level++) {
    const id = `n${level}`;
    if (container === 'loop') current = [{ id, type: 'loop', while: '=false', steps: current }];
    else if (container === 'map') current = [{ id, type: 'map', items: '=[]', steps: current }];
    else if (container === 'parallel') current = [{ id, type: 'parallel', branches: { a: current } }];
    else current = [{ id, type: 'branch', cases: [{ when: '=true', steps: current }] }];
  }
  return current;
}

function mutate(seed: Json, mutations: Mutation[]): Json {
  const doc = structuredClone(seed) as Record<string, Json>;
  // Nesting last: the other mutations then stay cheap (they walk every path of the document).
  const ordered = [...mutations.filter((m) => m.kind !== 'nest'), ...mutations.filter((m) => m.kind === 'nest')];
  for (const change of ordered) {
    if (change.kind === 'nest') {
      doc.steps = nestSteps(doc.steps ?? [], change.depth, change.container);
      continue;
    }
    const paths = pathsOf(doc).filter((path) => path.length > 0);
    const path = paths[change.pick % paths.length];
    if (!path) continue;
    const target = parentOf(doc, path);
    if (!target) continue;
    const { parent, key } = target;
    const set = (value: Json) => {
      (parent as Record<string | number, Json>)[key] = value;
    };
    const current = (parent as Record<string | number, Json>)[key]!;
    switch (change.kind) {
      case 'drop':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key as string];
        break;
      case 'replace':
        set(change.value);
        break;
      case 'duplicate':
        if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(current));
        else set([current, structuredClone(current)]);
        break;
      case 'text': {
        // Aim at a field that holds expressions when the path ends in one, else anywhere.
        const field = typeof key === 'string' && EXPRESSION_FIELDS.includes(key);
        set(field || typeof current === 'string' ? change.text : current);
        break;
      }
      case 'type':
        if (current !== null && typeof current === 'object' && !Array.isArray(current)) current.type = change.type;
        else set(change.type);
        break;
    }
  }
  return doc;
}

describe('validateFlow never throws (property)', () => {
  it('answers any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (doc) => {
        check(doc);
      }),
      { numRuns: 400 },
    );
  });

  it('answers any object that claims to be a flow', () => {
    const flowish = fc.record(
      {
        irVersion: fc.oneof(fc.constant(1), fc.jsonValue({ maxDepth: 1 })),
        id: fc.oneof(fc.constant('f'), fc.string()),
        name: fc.oneof(fc.constant('F'), fc.string()),
        steps: fc.oneof(fc.array(fc.jsonValue({ maxDepth: 4 })), fc.jsonValue({ maxDepth: 2 })),
        tools: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
        output: fc.oneof(exprText, fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: ['irVersion'] },
    );
    fc.assert(
      fc.property(flowish, (doc) => {
        check(doc, { hostTools: ['search'], flows: new Map([['other', doc]]) });
      }),
      { numRuns: 400 },
    );
  });

  it('answers mutated valid flows: dropped fields, changed types, duplicated steps, junk expressions, deep nesting', () => {
    fc.assert(
      fc.property(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 6 }), (seed, mutations) => {
        const doc = mutate(seed, mutations);
        check(doc, { flows: new Map<string, unknown>([['other', doc]]) });
      }),
      { numRuns: 500 },
    );
  }, 60_000);

  it('stays well-formed for the unmutated seeds and for seeds nested past the limit', () => {
    for (const seed of seeds) {
      expect(check(seed).ok).toBe(true);
      const deep = mutate(seed, [{ kind: 'nest', depth: 3000, container: 'parallel' }]);
      expect(check(deep).ok).toBe(false);
    }
  });
});
