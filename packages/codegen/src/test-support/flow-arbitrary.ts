/**
 * fast-check arbitraries for whole IR v1 flows, for property tests of export and import.
 *
 * The shape of the nesting (branch, parallel, map, loop around lists of steps) is the idea of
 * the engine's graph property test (packages/engine/src/graph/compile.test.ts), copied here so
 * the engine's test stays its own. The leaves are real steps — transform, code, llm
 * (`mock:echo`), approval, sleep, fail — with the optional fields a step may carry (name,
 * retry, timeout) and simple expressions and templates over `input` (plus `item`/`index`
 * inside a map and `iteration` inside a loop), so export has to print every one of them.
 * Step ids are assigned in document order (`s0`, `s1`, …) when the flow is built: every
 * generated flow is valid IR.
 */
import { compileTemplate, type Flow, type Step } from '@weft/engine';
import fc from 'fast-check';

/** What may be read where a leaf sits. */
type Scope = 'top' | 'map' | 'loop';

/** A leaf step without its id. */
type LeafStep = { type: string } & Record<string, unknown>;

/** A leaf for each scope it may land in (generated up front, so shrinking stays meaningful). */
type Leaf = Record<Scope, LeafStep>;

type Shape =
  | { kind: 'leaf'; leaf: Leaf; extras: Extras }
  | { kind: 'branch'; cases: Shape[][]; else: Shape[] | null; whens: string[] }
  | { kind: 'parallel'; branches: Shape[][] }
  | { kind: 'map' | 'loop'; body: Shape[]; concurrency: number | null; while: string };

/** The base fields every step may have. */
interface Extras {
  name: string | null;
  retry: { maxAttempts: number; backoff: 'fixed' | 'exponential'; initialDelay: string } | null;
  timeout: string | null;
}

const INPUT_FIELDS = ['x', 'name', 'n', 'text'] as const;

/**
 * Plain text for templates, names and string literals: quotes, backticks, `${`, backslashes and
 * newlines included, and now and then a piece that is hard to quote or escape (a backslash
 * before a quote, `{{` escaped or not).
 */
const text = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-zA-Z0-9 .,!?'"`$\\{}\n-]{0,16}$/), weight: 4 },
  fc
    .tuple(
      fc.stringMatching(/^[a-z '\\{]{0,4}$/),
      fc.constantFrom("\\'", '\\{{', '{{', '{{ x }}', '\\{{ input.x }}', '\\\\'),
      fc.stringMatching(/^[a-z '\\}]{0,4}$/),
    )
    .map((parts) => parts.join('')),
);

/** A whole-value expression over what `scope` can read. */
function expressionArb(scope: Scope): fc.Arbitrary<string> {
  const field = fc.constantFrom(...INPUT_FIELDS);
  const options: fc.Arbitrary<string>[] = [
    field.map((f) => `=input.${f}`),
    fc.tuple(field, fc.integer({ min: 0, max: 9 })).map(([f, n]) => `=input.${f} + ${n}`),
    fc.tuple(field, fc.integer({ min: -5, max: 5 })).map(([f, n]) => `=input.${f} == ${n}`),
    field.map((f) => `=input.${f} ? 'yes' : 'no'`),
    fc.constantFrom('=[1, 2, 3]', "={ a: 1, b: 'two' }", '={ a: 1 }.a', '=null', '=true', '=input'),
    // A string literal, alone or in an array: it may hold `{{` or `=` and is still just text.
    text.map((t) => `=${JSON.stringify(t)}`),
    fc.tuple(text, field).map(([t, f]) => `=[${JSON.stringify(t)}, input.${f}]`),
  ];
  if (scope === 'map') options.push(fc.constantFrom('=item', '=index + 1', '=item.value'));
  if (scope === 'loop') options.push(fc.constantFrom('=iteration', '=iteration * 2'));
  return fc.oneof(...options);
}

/**
 * Text next to an interpolation can make a template that does not parse (`{` + `{{ x }}`), or
 * escape it (a backslash before `{{` makes it literal text, which is fine: still a template).
 */
function compiles(template: string): boolean {
  try {
    compileTemplate(template);
    return true;
  } catch {
    return false;
  }
}

/** A template: text with `{{ expr }}` interpolations, e.g. `hi {{ input.name }}`. */
function templateArb(scope: Scope): fc.Arbitrary<string> {
  const part = fc.oneof(
    text,
    expressionArb(scope).map((expr) => `{{ ${expr.slice(1)} }}`),
  );
  return fc
    .array(part, { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join(''))
    .filter((template) => !template.startsWith('=') && compiles(template));
}

/** A transform value: an expression, a literal, or an object of either. */
function valueArb(scope: Scope): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(
    expressionArb(scope),
    templateArb(scope),
    fc.integer({ min: -100, max: 100 }),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.oneof(
    scalar,
    fc.dictionary(fc.constantFrom('a', 'b', 'value', 'snake_case', 'with-dash'), scalar, { maxKeys: 3 }),
    fc.array(scalar, { maxLength: 3 }),
  );
}

/** Each leaf type, with expressions over what `scope` can read. */
function leafArb(scope: Scope): fc.Arbitrary<LeafStep> {
  const template = templateArb(scope);
  return fc.oneof(
    valueArb(scope).map((value): LeafStep => ({ type: 'transform', value })),
    fc
      .tuple(
        fc.constantFrom('return args.x;', 'const n = Number(args.x) || 0;\nreturn { n: n + 1 };', 'return input;'),
        fc.option(expressionArb(scope)),
      )
      .map(([source, x]): LeafStep => ({ type: 'code', source, ...(x === null ? {} : { args: { x } }) })),
    fc.tuple(fc.boolean(), template, fc.option(fc.integer({ min: 1, max: 5 }))).map(
      ([withSystem, prompt, maxSteps]): LeafStep => ({
        type: 'llm',
        model: 'mock:echo',
        ...(withSystem ? { system: 'You are terse.' } : {}),
        prompt,
        ...(maxSteps === null ? {} : { maxSteps }),
      }),
    ),
    fc
      .tuple(
        template,
        fc.option(fc.constantFrom('1h', '24h', '30m')),
        fc.option(fc.constantFrom('reject' as const, 'approve' as const, 'fail' as const)),
      )
      .map(
        ([prompt, timeout, onTimeout]): LeafStep => ({
          type: 'approval',
          prompt,
          ...(timeout === null ? {} : { timeout }),
          ...(onTimeout === null ? {} : { onTimeout }),
        }),
      ),
    fc.constantFrom('1s', '5s', '2m', '1h').map((duration): LeafStep => ({ type: 'sleep', duration })),
    template.map((message): LeafStep => ({ type: 'fail', message })),
  );
}

const extrasArb: fc.Arbitrary<Extras> = fc.record({
  // Export writes a name as a comment line, trimmed: names here are trimmed single lines.
  name: fc.option(
    text.map((s) => s.replaceAll('\n', ' ').trim()).filter((s) => s.length > 0),
    { freq: 4 },
  ),
  retry: fc.option(
    fc.record({
      maxAttempts: fc.integer({ min: 1, max: 5 }),
      backoff: fc.constantFrom('fixed' as const, 'exponential' as const),
      initialDelay: fc.constantFrom('1s', '500ms', '2s'),
    }),
    { freq: 4 },
  ),
  timeout: fc.option(fc.constantFrom('30s', '5m'), { freq: 4 }),
});

const shapeArb = fc.letrec<{ step: Shape; list: Shape[] }>((tie) => ({
  step: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({
      kind: fc.constant('leaf' as const),
      leaf: fc.record({ top: leafArb('top'), map: leafArb('map'), loop: leafArb('loop') }),
      extras: extrasArb,
    }),
    fc.record({
      kind: fc.constant('branch' as const),
      cases: fc.array(tie('list') as fc.Arbitrary<Shape[]>, { minLength: 1, maxLength: 2 }),
      else: fc.option(tie('list') as fc.Arbitrary<Shape[]>),
      whens: fc.array(expressionArb('top'), { minLength: 3, maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constant('parallel' as const),
      branches: fc.array(tie('list') as fc.Arbitrary<Shape[]>, { maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constantFrom('map' as const, 'loop' as const),
      body: tie('list') as fc.Arbitrary<Shape[]>,
      concurrency: fc.option(fc.integer({ min: 1, max: 4 })),
      // A loop's condition; one starts with `{`, which an arrow function would read as a block.
      while: fc.constantFrom('=iteration < 2', '={ n: iteration }.n < 2'),
    }),
  ),
  list: fc.array(tie('step') as fc.Arbitrary<Shape>, { maxLength: 2 }),
}));

function buildFlow(shapes: Shape[], meta: { withInput: boolean; output: 'none' | 'expr' | 'object' }): Flow {
  let next = 0;
  const list = (items: Shape[], scope: Scope): Step[] => items.map((shape) => step(shape, scope));
  const step = (shape: Shape, scope: Scope): Step => {
    const id = `s${next++}`;
    switch (shape.kind) {
      case 'leaf': {
        const { name, retry, timeout } = shape.extras;
        const leaf = shape.leaf[scope];
        return {
          id,
          ...leaf,
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
          cases: shape.cases.map((arm, index) => ({ when: shape.whens[index]!, steps: list(arm, scope) })),
          ...(shape.else ? { else: list(shape.else, scope) } : {}),
        };
      case 'parallel':
        return {
          id,
          type: 'parallel',
          branches: Object.fromEntries(
            shape.branches.map((arm, index) => [`b${(index * 7) % 5}_${index}`, list(arm, scope)]),
          ),
        };
      case 'map':
        return {
          id,
          type: 'map',
          items: '=[{ value: 1 }, { value: 2 }]',
          ...(shape.concurrency === null ? {} : { concurrency: shape.concurrency }),
          steps: list(shape.body, 'map'),
        };
      case 'loop':
        return { id, type: 'loop', while: shape.while, maxIterations: 3, steps: list(shape.body, 'loop') };
    }
  };
  const steps = list(shapes, 'top');
  const last = steps.at(-1)!.id;
  return {
    irVersion: 1,
    id: 'generated',
    name: 'Generated flow',
    ...(meta.withInput
      ? {
          input: {
            type: 'object',
            properties: { x: { type: 'number' }, name: { type: 'string' }, n: { type: 'integer' } },
            required: ['name'],
          },
        }
      : {}),
    steps,
    ...(meta.output === 'expr' ? { output: `=steps.${last}.output` } : {}),
    ...(meta.output === 'object' ? { output: { last: `=steps.${last}.output`, name: '=input.name' } } : {}),
  };
}

/** A valid IR v1 flow of 1–4 top-level steps, nested up to a few levels. */
export const flowArb: fc.Arbitrary<Flow> = fc
  .tuple(
    fc.array(shapeArb.step, { minLength: 1, maxLength: 4 }),
    fc.boolean(),
    fc.constantFrom('none' as const, 'expr' as const, 'object' as const),
  )
  .map(([shapes, withInput, output]) => buildFlow(shapes, { withInput, output }));
