/**
 * The weft target's `: any` on code step parameters comes off exactly: in `weft import`
 * (`codeSourceFromTypeScript`) and at run time, where Node's type stripping blanks the
 * annotations before `fn.toString()` and the engine's `codeSourceOf` drops the blanks. A source
 * the annotations cannot leave losslessly is exported as a string instead.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CodeFunction, codeSourceOf, type Flow } from '@weft/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { exportFlow } from '../export-flow.ts';
import { importFlow } from '../import/import-flow.ts';
import { annotateParameters, codeSourceFromTypeScript } from './code-params.ts';

const MODULES = fileURLToPath(new URL(`../../.tmp-code-params-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(MODULES, { recursive: true, force: true }));

const SOURCES: [name: string, source: string, annotated: string][] = [
  [
    'callback parameters',
    'return args.items.map((x, i) => x * i);',
    'return args.items.map((x: any, i: any) => x * i);',
  ],
  ['a bare arrow parameter', 'return args.items.filter(x => x > 1);', 'return args.items.filter((x : any) => x > 1);'],
  ['a parenthesised one', 'return args.items.filter((x) => x > 1);', 'return args.items.filter((x: any) => x > 1);'],
  [
    'spaces inside the parentheses',
    'return args.xs.map(( x ,y ) => x);',
    'return args.xs.map(( x: any ,y: any ) => x);',
  ],
  [
    'patterns, rest and defaults',
    'return args.xs.map(({ a }, [b], ...rest) => a + b + rest.length).map((v, k = 1) => v * k);',
    'return args.xs.map(({ a }: any, [b]: any, ...rest: any) => a + b + rest.length).map((v: any, k = 1) => v * k);',
  ],
  [
    'functions, methods and setters',
    'function twice(f) { return (v) => f(f(v)); }\nconst o = { m(a) { return a; }, set s(v) {} };\nreturn twice(o.m)(args.n);',
    'function twice(f: any) { return (v: any) => f(f(v)); }\nconst o = { m(a: any) { return a; }, set s(v: any) {} };\nreturn twice(o.m)(args.n);',
  ],
  [
    'no parameters at all',
    'const lines = [];\n\nreturn lines.join("\\n");',
    'const lines = [];\n\nreturn lines.join("\\n");',
  ],
];

function codeFlow(source: string): Flow {
  return { irVersion: 1, id: 'code', name: 'Code', steps: [{ id: 'calc', type: 'code', source, args: {} }] };
}

/** The exported module's code function, as Node loads it (type stripping), read back by the engine. */
function runtimeSource(module: string, name: string): string {
  mkdirSync(MODULES, { recursive: true });
  const file = join(MODULES, `${name}-${Math.random().toString(36).slice(2)}.ts`);
  const fn = module.slice(
    module.indexOf(`function ${name}(`),
    module.indexOf('\n}\n', module.indexOf(`function ${name}(`)) + 2,
  );
  writeFileSync(file, `${fn}\nexport default ${name};\n`);
  return codeSourceOf((createRequire(MODULES)(file) as { default: CodeFunction }).default);
}

describe('the weft target annotates code step parameters', () => {
  it.each(SOURCES)('%s: `: any` goes on, and comes off in import and at run time', async (_name, source, annotated) => {
    expect(annotateParameters(source, { bareArrow: ' : any)' })).toBe(annotated);
    const module = await exportFlow(codeFlow(source), 'weft');
    expect(module).toContain(
      `function calcCode(args: any, input: any, steps: any) {\n  ${annotated.replaceAll('\n', '\n  ').replaceAll('\n  \n', '\n\n')}\n}`,
    );

    const imported = importFlow(module);
    expect(imported.ok && imported.flow.steps[0]).toMatchObject({ type: 'code', source });
    expect(runtimeSource(module, 'calcCode')).toBe(source);
  });

  it('writes a source as a string when blanked annotations could not be told from its own spaces', async () => {
    for (const source of [
      'return "a     ,";',
      'return args.xs.map((x /* first */) => x);',
      'return args.xs.map((x )=> x);',
    ]) {
      const module = await exportFlow(codeFlow(source), 'weft');
      expect(module).not.toContain('function calcCode');
      const imported = importFlow(module);
      expect(imported.ok && imported.flow.steps[0]).toMatchObject({ source });
    }
  });

  it('leaves a hand-written function (not the exported header) as it is', () => {
    expect(codeSourceFromTypeScript('(args, input, steps) => {\n  return args.xs.map((x: any) => x);\n}')).toBe(
      'return args.xs.map((x     ) => x);',
    );
  });
});
