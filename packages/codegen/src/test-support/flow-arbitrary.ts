/**
 * fast-check arbitraries for whole IR v1 flows, for property tests of export and import.
 *
 * The shape of the nesting (branch, parallel, map, loop around lists of steps) is the idea of
 * the engine's graph property test (packages/engine/src/graph/compile.test.ts), copied here so
 * the engine's test stays its own. The leaves are real steps — transform, code, llm
 * (`mock:echo`), http, approval, sleep, fail — with the optional fields a step may carry (name,
 * retry, timeout) and simple expressions and templates over `input` (plus the item, by the
 * map's `as` name, the enclosing map's item and `index` inside a map, and `iteration` inside a
 * loop), so export has to print every one of them. The
 * flow itself has a name, maybe a description, an input schema and tools of its own.
 *
 * Every free text (names, descriptions, literal strings, template text, object keys, schema
 * property names) comes from a `FlowTexts` (flow-texts.ts): plain for `flowArb`, built to break
 * out of its token for `flowArbitrary(HOSTILE_TEXTS)`. Step ids are assigned in document order
 * (`s0`, `s1`, …) when the flow is built: every generated flow is valid IR.
 */
import { compileExpression, compileTemplate, type Flow, type FlowTool } from '@weft/engine';
import fc from 'fast-check';
import {
  buildFlow,
  type Extras,
  ITEM,
  type LeafStep,
  type Meta,
  OUTER_ITEM,
  type Scope,
  type Shape,
} from './flow-shapes.ts';
import { type FlowTexts, PLAIN_TEXTS } from './flow-texts.ts';

const INPUT_FIELDS = ['x', 'name', 'n', 'text'] as const;

function compiles(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/** Does `template` read nothing but the expressions in `reads`? (Throws when it does not compile.) */
function readsOnly(template: string, reads: ReadonlySet<string>): boolean {
  return compileTemplate(template).parts.every((part) => typeof part === 'string' || reads.has(part.source));
}

/** Every arbitrary, with its free text from `texts`. */
function arbitraries({ text, key }: FlowTexts) {
  /** A whole-value expression over what `scope` can read. */
  function expressionArb(scope: Scope | 'tool'): fc.Arbitrary<string> {
    const field = fc.constantFrom(...INPUT_FIELDS);
    const root = scope === 'tool' ? 'args' : 'input';
    const options: fc.Arbitrary<string>[] = [
      field.map((f) => `=${root}.${f}`),
      fc.tuple(field, fc.integer({ min: 0, max: 9 })).map(([f, n]) => `=${root}.${f} + ${n}`),
      fc.tuple(field, fc.integer({ min: -5, max: 5 })).map(([f, n]) => `=${root}.${f} == ${n}`),
      field.map((f) => `=${root}.${f} ? 'yes' : 'no'`),
      fc.constantFrom('=[1, 2, 3]', "={ a: 1, b: 'two' }", '={ a: 1 }.a', '=null', '=true', `=${root}`),
      // A string literal, alone or in an array: it may hold `{{` or `=` and is still just text.
      text.map((t) => `=${JSON.stringify(t)}`),
      fc.tuple(text, field).map(([t, f]) => `=[${JSON.stringify(t)}, ${root}.${f}]`),
      // An object literal whose key is free text (the language refuses a few, like `__proto__`).
      fc
        .tuple(key, field)
        .map(([k, f]) => `={ ${JSON.stringify(k)}: ${root}.${f} }`)
        .filter((expression) => compiles(() => compileExpression(expression.slice(1)) !== undefined)),
    ];
    // The map's item by whatever name the map gives it, and the enclosing map's (buildFlow fills them in).
    if (scope === 'map') {
      options.push(
        fc.constantFrom(
          `=${ITEM}`,
          '=index + 1',
          `=${ITEM}.value`,
          `=[${ITEM}, ${OUTER_ITEM}]`,
          `={ ${ITEM} }.${ITEM}`,
        ),
      );
    }
    if (scope === 'loop') options.push(fc.constantFrom('=iteration', '=iteration * 2'));
    return fc.oneof(...options);
  }

  /** A template: text with `{{ expr }}` interpolations, e.g. `hi {{ input.name }}`. */
  function templateArb(scope: Scope | 'tool'): fc.Arbitrary<string> {
    const part = fc.oneof(
      text.map((t) => ({ text: t })),
      expressionArb(scope).map((expr) => ({ expression: expr.slice(1) })),
    );
    // Text next to an interpolation can make a template that does not parse (`{` + `{{ x }}`),
    // escape it (a backslash before `{{` makes it literal text, which is fine), or open one of
    // its own (`{{a}}`, reading a name nothing binds): only the generated ones (and the text's
    // own `{{ input.x }}`) may be read.
    return fc
      .array(part, { minLength: 1, maxLength: 4 })
      .map((parts) => ({
        template: parts.map((p) => ('text' in p ? p.text : `{{ ${p.expression} }}`)).join(''),
        reads: new Set(['input.x', ...parts.flatMap((p) => ('expression' in p ? [p.expression.trim()] : []))]),
      }))
      .filter(({ template, reads }) => !template.startsWith('=') && compiles(() => readsOnly(template, reads)))
      .map(({ template }) => template);
  }

  /** A value: an expression, a literal, or an object or array of those. */
  function valueArb(scope: Scope): fc.Arbitrary<unknown> {
    const scalar = fc.oneof(
      expressionArb(scope),
      templateArb(scope),
      fc.integer({ min: -100, max: 100 }),
      fc.boolean(),
      fc.constant(null),
    );
    return fc.oneof(scalar, fc.dictionary(key, scalar, { maxKeys: 3 }), fc.array(scalar, { maxLength: 3 }));
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
      fc.tuple(fc.option(template), template, fc.option(fc.integer({ min: 1, max: 5 })), fc.boolean()).map(
        ([system, prompt, maxSteps, withTools]): LeafStep => ({
          type: 'llm',
          model: 'mock:echo',
          ...(system === null ? {} : { system }),
          prompt,
          ...(maxSteps === null ? {} : { maxSteps }),
          // Kept only when the flow has tools (buildFlow).
          ...(withTools ? { tools: ['lookup', 'fetch_page'] } : {}),
        }),
      ),
      fc.tuple(template, template, fc.option(valueArb(scope))).map(
        ([url, note, body]): LeafStep => ({
          type: 'http',
          method: 'POST',
          url,
          // Names that carry no credential: a literal credential is read from the environment
          // instead (secrets.ts), and a module that reads the environment cannot be imported.
          headers: { accept: 'application/json', 'x-note': note },
          ...(body === null ? {} : { body }),
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
    // Any text: export writes a name the comment above the step cannot hold exactly as a string.
    name: fc.option(text, { freq: 4 }),
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
        // A map's item name: none, the default written out, others, and names the export itself
        // uses (`eq`, `failure`, a code step's function `s1Code`), which it must spell apart.
        as: fc.option(fc.constantFrom('item', 'ticket', 'line', 'eq', 'failure', 's1Code'), { freq: 2 }),
      }),
    ),
    list: fc.array(tie('step') as fc.Arbitrary<Shape>, { maxLength: 2 }),
  }));

  // The engine's JSON Schema validator builds URIs from property names: a lone surrogate is refused.
  const schemaKey = key.filter((k) => k.isWellFormed());

  /** The run input's schema: the fields expressions read, and one of free-text name and doc. */
  const inputArb = fc
    .tuple(
      fc.option(
        fc.record({
          key: schemaKey,
          description: text,
          values: fc.uniqueArray(text, { minLength: 1, maxLength: 3 }),
          nestedKey: schemaKey,
          constant: text,
          required: fc.boolean(),
        }),
      ),
      fc.option(text),
    )
    .map(([extra, nameDoc]) => ({
      type: 'object',
      properties: {
        x: { type: 'number' },
        name: { type: 'string', ...(nameDoc === null ? {} : { description: nameDoc }) },
        n: { type: 'integer' },
        ...(extra === null
          ? {}
          : {
              [extra.key]: {
                type: 'array',
                description: extra.description,
                items: {
                  type: 'object',
                  properties: { [extra.nestedKey]: { enum: extra.values }, c: { const: extra.constant } },
                },
              },
            }),
      },
      required: ['name', ...(extra?.required && extra.key !== 'name' ? [extra.key] : [])],
    }));

  /** A code tool and an http tool, described (and their parameters documented) in free text. */
  const toolsArb = fc
    .record({
      description: text.filter((t) => t.length > 0),
      parameter: key,
      parameterDoc: text,
      url: templateArb('tool'),
      note: templateArb('tool'),
    })
    .map(
      (t): Record<string, FlowTool> => ({
        lookup: {
          description: t.description,
          parameters: {
            type: 'object',
            properties: { [t.parameter]: { type: 'string', description: t.parameterDoc } },
          },
          source: 'return args;',
        },
        fetch_page: {
          description: t.description,
          parameters: { type: 'object', properties: { x: { type: 'string' } } },
          http: { url: t.url, headers: { 'x-note': t.note } },
        },
      }),
    );

  const metaArb: fc.Arbitrary<Meta> = fc.record({
    name: text.filter((t) => t.length > 0),
    description: fc.option(text),
    input: fc.option(inputArb),
    tools: fc.option(toolsArb),
    output: fc.constantFrom('none' as const, 'expr' as const, 'object' as const),
  });

  return fc
    .tuple(fc.array(shapeArb.step, { minLength: 1, maxLength: 4 }), metaArb)
    .map(([shapes, meta]) => buildFlow(shapes, meta));
}

/** Valid IR v1 flows of 1–4 top-level steps, nested up to a few levels, with free text from `texts`. */
export function flowArbitrary(texts: FlowTexts): fc.Arbitrary<Flow> {
  return arbitraries(texts);
}

/** Valid IR v1 flows with plain text. */
export const flowArb: fc.Arbitrary<Flow> = flowArbitrary(PLAIN_TEXTS);
