/**
 * Long flat operator chains (`1 + 1 + …`, `a && b && …`) are one level of nesting to the engine
 * however long, so a flow may hold one of thousands of terms. Its export, to every target, is
 * formatted (the chain set aside from prettier, format-source.ts), runs as the engine runs the
 * flow, and imports back. The modules are written inside this package, so their imports resolve,
 * and loaded with import().
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type CodeFirstFlow,
  type Flow,
  interpret,
  type Json,
  runCodeFirst,
  type StepHost,
  validateFlow,
} from '@weft/engine';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { type ExportTargetName, exportFlow, exportFlowFiles } from './export-flow.ts';
import { formatSource } from './format-source.ts';
import { importFlow } from './import/import-flow.ts';

const chain = (first: string, rest: string, repeats: number) => `${first}${rest.repeat(repeats)}`;

/** 1 + 2*3 - 4*5 + 6*7 - …: a `+`/`-` chain whose right operands are `*` chains, up to the source limit. */
function mixedPrecedence(): string {
  let source = '1';
  for (let i = 1; source.length < 9_980; i++) source += `${i % 2 === 1 ? '+' : '-'}${2 * i}*${2 * i + 1}`;
  return source;
}

/** Each expression as the engine's canonical compact spelling writes it (what import gives back). */
const EXPRESSIONS = {
  plus: chain('input.n', '+1', 2_999), // 3,000 terms
  and: `${chain('input.ok', '&&1', 3_298)}&&'all'`, // 3,300 terms
  // In parentheses, read by a member: the parentheses must survive being set aside from prettier.
  length: `(${chain('input.s', "+'ab'", 1_500)}).length`,
  mixed: mixedPrecedence(),
  // `==` of two names is `eq(a, b)` in TypeScript: a chain must not nest 900 calls deep.
  equals: chain('input.ok', '==input.ok', 899),
  nullish: `${chain('input.z', '??input.w', 1_000)}??input.n`,
};

const source: Flow = (() => {
  const result = validateFlow({
    irVersion: 1,
    id: 'long-chains',
    name: 'Long chains',
    steps: Object.entries(EXPRESSIONS).map(([id, expression]) => ({ id, type: 'transform', value: `=${expression}` })),
    output: Object.fromEntries(Object.keys(EXPRESSIONS).map((id) => [id, `=steps.${id}.output`])),
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.flow;
})();

const INPUTS: Json[] = [
  { n: 5, ok: true, s: 'x', z: null },
  { n: -1, ok: false, s: '', z: null },
];

/** The flow holds transforms only: a host that is never called. */
const host: StepHost = {
  run: () => Promise.reject(new Error('no calls expected')),
  waitForApproval: () => Promise.reject(new Error('no approvals expected')),
  sleep: () => Promise.reject(new Error('no sleeps expected')),
  spawn: () => Promise.reject(new Error('no spawns expected')),
  emit: () => {},
};

const expected = await Promise.all(INPUTS.map((input) => interpret(source, input, host)));

const folder = fileURLToPath(new URL(`../.tmp-long-chains-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Every file of the export written to disk (a package of its own, as ES modules); the paths. */
async function exportedFiles(target: ExportTargetName, extra = ''): Promise<string[]> {
  const files = await exportFlowFiles(source, target);
  mkdirSync(join(folder, target), { recursive: true });
  writeFileSync(join(folder, target, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return files.map((file, index) => {
    const path = join(folder, target, file.path);
    writeFileSync(path, `${file.contents}${index === 0 ? extra : ''}`);
    return path;
  });
}

it('the engine accepts the chains, and they give what they should', () => {
  expect(EXPRESSIONS.mixed.split(/[+-]/).length).toBeGreaterThan(1_000);
  expect(expected[0]).toMatchObject({ plus: 3_004, and: 'all', length: 3_001, nullish: 5 });
  expect(expected[1]).toMatchObject({ plus: 2_998, and: false, length: 3_000, nullish: -1 });
});

describe.each([
  ['weft', '', async (module: { default: CodeFirstFlow }, input: Json) => runCodeFirst(module.default, input, host)],
  // The Inngest module keeps runFlow (the flow's logic, below the Inngest function) private:
  // one line exporting it is appended.
  [
    'inngest',
    '\nexport { runFlow };\n',
    async (module: { runFlow: (input: Json, durable: object) => Promise<Json> }, input: Json) =>
      module.runFlow(input, {}),
  ],
  // A workflow without durable calls runs as a plain function.
  [
    'temporal',
    '',
    async (module: { longChains: (input: Json) => Promise<Json> }, input: Json) => module.longChains(input),
  ],
] as const)('the %s export', (target, extra, run) => {
  it('is formatted around the chains and runs as the engine does', async () => {
    const [main] = await exportedFiles(target, extra);
    const contents = readFileSync(main!, 'utf8');
    expect(contents).not.toMatch(/Not formatted/);
    // The chain is on one line, as printed; the code around it is prettier's.
    expect(contents).toContain(`input.n${' + 1'.repeat(2_999)}`);
    expect(contents).toMatch(/\n {2}\S/);
    const module = await import(pathToFileURL(main!).href);
    for (const [index, input] of INPUTS.entries()) {
      expect(await run(module, input)).toEqual(expected[index]);
    }
  });
});

it('every export type-checks with tsc --strict', async () => {
  // Written by the tests above, or here when this one runs alone.
  const files = (
    await Promise.all((['weft', 'inngest', 'temporal'] as const).map((target) => exportedFiles(target)))
  ).flat();
  const program = ts.createProgram({
    rootNames: files,
    options: {
      strict: true,
      target: ts.ScriptTarget.ES2024,
      lib: ['lib.es2024.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      allowImportingTsExtensions: true,
    },
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(diagnostics).toEqual([]);
}, 120_000);

it('the weft export imports back: the same expressions, in the canonical spelling', async () => {
  const imported = importFlow(await exportFlow(source, 'weft'));
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  const values = Object.fromEntries(imported.flow.steps.map((step) => [step.id, (step as { value: unknown }).value]));
  const { equals, ...unchanged } = EXPRESSIONS;
  expect(values).toMatchObject(Object.fromEntries(Object.entries(unchanged).map(([id, text]) => [id, `=${text}`])));
  // `eq(a, b) === c` comes back as `a == b === c`, which means the same.
  expect(values.equals).toBe(`=${chain('input.ok==input.ok', '===input.ok', 898)}`);
  for (const [index, input] of INPUTS.entries()) {
    expect(await interpret(imported.flow, input, host)).toEqual(expected[index]);
  }
});

it('import reads a chain of 5,000 terms, the most the source limit allows', async () => {
  const longest = `1${'+1'.repeat(4_999)}`;
  const flow = validateFlow({
    irVersion: 1,
    id: 'longest',
    name: 'Longest',
    steps: [{ id: 'sum', type: 'transform', value: `=${longest}` }],
  });
  if (!flow.ok) throw new Error(JSON.stringify(flow.errors));
  const imported = importFlow(await exportFlow(flow.flow, 'weft'));
  expect(imported.ok && imported.flow.steps[0]).toMatchObject({ id: 'sum', value: `=${longest}` });
});

it('import reports a module nested too deeply for the TypeScript parser as an issue', () => {
  const deep = `import { defineFlow } from '@weft/engine';\nexport default defineFlow({ id: 'x' }, async ({ step }) => step.transform('a', { value: ${'['.repeat(20_000)}${']'.repeat(20_000)} }));`;
  const result = importFlow(deep);
  expect(result).toEqual({
    ok: false,
    errors: [{ line: 1, column: 1, message: expect.stringMatching(/nested too deeply for TypeScript's parser/) }],
  });
});

it('a module prettier cannot format is written as emitted, with a comment saying so', async () => {
  const deep = `export const value = ${'['.repeat(20_000)}${']'.repeat(20_000)};\n`;
  const formatted = await formatSource(deep);
  expect(formatted).toBe(
    `// Not formatted: prettier ran out of stack on this module (Maximum call stack size exceeded).\n${deep}`,
  );
});
