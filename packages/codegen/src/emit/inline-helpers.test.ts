/**
 * The Inngest and Temporal exports cannot import `@weft/engine`, so they carry their own copy of
 * the expression helpers (inline-helpers.ts). This checks the copy against the engine: the whole
 * inlined runtime is type-checked under `--strict`, transpiled and loaded as the exported module
 * holds it, and every helper is called with the same arguments as the engine's (a table of
 * representative inputs per helper, then generated values): both give the same result, or both
 * fail. Sizes past the engine's size limits are out of scope: of those the copy keeps only
 * `range`'s count.
 */
import { runInThisContext } from 'node:vm';
import { EXPR_HELPERS, eq as engineEq, helpers as engineHelpers, ne as engineNe, template } from '@weft/engine';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CASES } from './inline-helpers.cases.ts';
import { inlineRuntime } from './inline-helpers.ts';

type Fn = (...args: unknown[]) => unknown;
interface Runtime {
  helpers: Record<string, Fn>;
  template: typeof template;
  eq: Fn;
  ne: Fn;
}

const ENGINE_NAMES = [...EXPR_HELPERS.keys()].sort();
/** The engine's helpers as code-first flows call them: EXPR_HELPERS, with its arity check. */
const engine = engineHelpers as unknown as Record<string, Fn>;

/** The runtime an exported module holding every helper (and `template`, `eq`, `ne`) would carry. */
const source = () => inlineRuntime({ helpers: new Set(ENGINE_NAMES), runtime: new Set(['eq', 'ne', 'template']) });

let loaded: Runtime | undefined;
/** The emitted source, transpiled, run in this realm (so results compare like with like). */
function inlined(): Runtime {
  if (loaded) return loaded;
  const js = ts.transpileModule(source(), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  loaded = runInThisContext(`(() => {\n${js}\nreturn { helpers, template, eq, ne };\n})()`) as Runtime;
  return loaded;
}

/** `tsc --strict` diagnostics of the inlined runtime, as a module of its own. */
function typeErrors(text: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2024,
    lib: ['lib.es2024.d.ts'],
    types: [],
  };
  const file = '/weft-inline-runtime.ts';
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, text, language) : read(name, language, ...rest);
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

type Outcome = { value: unknown } | { fails: true };

function outcome(call: () => unknown): Outcome {
  try {
    return { value: call() };
  } catch (error) {
    // A ReferenceError is a broken copy (a support function left out), not a refused argument.
    if (error instanceof ReferenceError) throw error;
    return { fails: true };
  }
}

function expectSame(name: string, args: unknown[]): void {
  const expected = outcome(() => engine[name]!(...args));
  const actual = outcome(() => inlined().helpers[name]!(...args));
  expect(actual, `${name}(${args.map(show).join(', ')})`).toStrictEqual(expected);
}

/** An argument for a test name: JSON, except where JSON cannot say it (undefined, NaN, -0). */
function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (Object.is(value, -0)) return '-0';
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

describe('the inlined runtime', () => {
  it('has an inlined twin of every engine helper, and no other', () => {
    expect(() => source()).not.toThrow();
    expect(Object.keys(inlined().helpers).sort()).toEqual(ENGINE_NAMES);
    // The case table must grow with the engine, too.
    expect(Object.keys(CASES).sort()).toEqual(ENGINE_NAMES);
  });

  it('type-checks under --strict', () => {
    expect(typeErrors(`${source()}\nexport {};\n`)).toEqual([]);
  });

  it('destructures every helper but `default` (a reserved word) into a bare name', () => {
    const names = /const \{ ([^}]+) \} = helpers;/.exec(source())?.[1]?.split(', ');
    expect(names).toEqual(ENGINE_NAMES.filter((name) => name !== 'default'));
  });
});

describe.each(ENGINE_NAMES)('%s() agrees with the engine', (name) => {
  it.each((CASES[name] ?? []).map((args) => [args.map(show).join(', '), args] as const))('on (%s)', (_, args) => {
    expectSame(name, args);
  });
});

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: fc.constantFrom('a', 'b', ',', '$', '&', '`', "'", ' ', '1'), maxLength: 6 }),
);
/** Values an expression can produce: JSON, plus undefined (a missing value), NaN, ±Infinity and -0. */
const scalar = fc.oneof(
  text,
  fc.integer({ min: -3, max: 20 }),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(null, undefined, 0, -0, 0.5, 2.5, Number.NaN, Number.POSITIVE_INFINITY, '__proto__'),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom('a', 'b', 'c', '__proto__'), text), tie('value'), { maxKeys: 4 }),
  ),
}));
const arbitraryValue = fc.oneof(value, fc.jsonValue({ maxDepth: 3 }));

describe('generated arguments', () => {
  it.each(ENGINE_NAMES)('%s() agrees with the engine', (name) => {
    const { min, max } = EXPR_HELPERS.get(name)!;
    const args = fc.array(arbitraryValue, { minLength: min, maxLength: Math.min(max, min + 2) });
    fc.assert(
      fc.property(args, (list) => expectSame(name, list)),
      { numRuns: 200 },
    );
  });

  it('template renders like the engine', () => {
    const strings = (parts: string[]) => Object.assign([...parts], { raw: parts }) as unknown as TemplateStringsArray;
    const check = (parts: string[], values: unknown[]): void => {
      expect(inlined().template(strings(parts), ...values)).toBe(template(strings(parts), ...values));
    };
    check(['a ', ' b ', ' \\{{ c'], [{ x: undefined, y: [undefined, Number.NaN] }, null]);
    fc.assert(
      fc.property(fc.array(arbitraryValue, { maxLength: 3 }), (values) => {
        check(['<', ...values.map((_, i) => `|${i}\\{{`)], values);
      }),
    );
  });

  it('eq and ne compare like the engine', () => {
    fc.assert(
      fc.property(arbitraryValue, arbitraryValue, (a, b) => {
        expect(inlined().eq(a, b)).toBe(engineEq(a, b));
        expect(inlined().ne(a, b)).toBe(engineNe(a, b));
        expect(inlined().eq(a, a)).toBe(engineEq(a, a));
      }),
    );
  });
});
