/**
 * Property: free text in a flow never becomes code in any export. For generated flows whose
 * every free text — flow name and description, step names, literal strings in values,
 * templates, prompts and expressions, template text, object keys, tool descriptions, input
 * schema names and docs — is hostile (flow-texts.ts: line terminators, comment delimiters,
 * quotes, backticks, `${`, backslashes, `__proto__`, odd Unicode), every file of every target
 *
 * - parses without a diagnostic,
 * - has the code shape of the same flow with all its free text replaced by a placeholder
 *   (neutral-flow.ts): the TypeScript syntax trees are the same once string and template text
 *   and property names are abstracted away (typescript-ast.ts `codeShape`), so the hostile
 *   text landed only in string literal, template literal and comment tokens and in property
 *   names — no identifier, call or statement that the placeholder flow's module lacks,
 * - sets no prototype (`__proto__: …` in an object literal),
 *
 * and the weft target imports back to the same IR. The neutral twin's files are compared as the
 * generator writes them (formatting changes no code shape, and is the slow part). `code` step sources are the author's
 * JavaScript, written verbatim by design: they are fixed here, not generated.
 */
import { type Flow, validateFlow } from '@weft/engine';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ExportTargetName, exportFlowFiles, TARGETS } from './export-flow.ts';
import { importFlow } from './import/import-flow.ts';
import type { ExportFile, ExportTarget } from './targets/target.ts';
import { canonicalFlow } from './test-support/canonical.ts';
import { flowArbitrary } from './test-support/flow-arbitrary.ts';
import { HOSTILE_TEXTS } from './test-support/flow-texts.ts';
import { neutralFlow } from './test-support/neutral-flow.ts';
import { codeShape, parseModule, prototypeSetters } from './test-support/typescript-ast.ts';

/**
 * Runs: formatting is what takes time (prettier, ~0.15 s a module), so every run checks each
 * target's text as the generator writes it and the weft module as exported (formatted and
 * imported back); fewer runs format the inngest and temporal modules too. `WEFT_PROPERTY_RUNS`
 * scales both.
 */
const RUNS = Math.max(1, Math.round((Number(process.env.WEFT_PROPERTY_RUNS) || 60) / 4));
const FORMATTED_RUNS = Math.max(1, Math.round(RUNS / 5));
const TARGET_NAMES = Object.keys(TARGETS) as ExportTargetName[];
const hostileFlows = flowArbitrary(HOSTILE_TEXTS);

function validated(flow: Flow): Flow {
  const result = validateFlow(flow);
  if (!result.ok) throw new Error(`invalid flow: ${JSON.stringify(result.errors)}\n${JSON.stringify(flow)}`);
  return result.flow;
}

/** Each file of `target`'s export, unformatted, as the generator writes it. */
function emitted(flow: Flow, target: ExportTargetName): ExportFile[] {
  const chosen: ExportTarget = TARGETS[target];
  return chosen.emitFiles?.(flow) ?? [{ path: `${flow.id}.ts`, contents: chosen.emit(flow) }];
}

/**
 * `files` (from the hostile flow) parse, set no prototype, and have the code shape of
 * `neutralFiles` (the same target's files for the neutral twin).
 */
function expectSameCode(where: string, files: ExportFile[], neutralFiles: ExportFile[]): void {
  expect(files.map((file) => file.path)).toEqual(neutralFiles.map((file) => file.path));
  files.forEach((file, index) => {
    const at = `${where}: ${file.path}`;
    const hostile = parseModule(file.contents, file.path);
    const neutral = parseModule(neutralFiles[index]!.contents, file.path);
    expect(hostile.diagnostics, `${at}\n${file.contents}`).toEqual([]);
    expect(neutral.diagnostics, at).toEqual([]);
    expect(prototypeSetters(hostile.file), at).toEqual([]);
    const shape = codeShape(hostile.file);
    const neutralShape = codeShape(neutral.file);
    if (shape !== neutralShape) expect.fail(`${at}: the code differs\n${firstDifference(shape, neutralShape)}`);
  });
}

/** Where two code shapes first differ, with both shapes around there, for a readable failure. */
function firstDifference(hostile: string, neutral: string): string {
  let at = 0;
  while (at < hostile.length && hostile[at] === neutral[at]) at++;
  const around = (shape: string) => shape.slice(Math.max(0, at - 300), at + 300);
  return `hostile: …${around(hostile)}…\nneutral: …${around(neutral)}…`;
}

/** A hostile flow (validated) and its neutral twin. */
const flowPairs = hostileFlows.map((generated) => {
  const flow = validated(generated);
  return { flow, neutral: validated(neutralFlow(flow)) };
});

describe('property: free text stays text in every export', () => {
  it('generates valid flows, and valid neutral twins', () => {
    fc.assert(
      fc.property(hostileFlows, (flow) => {
        expect(validateFlow(flow).ok).toBe(true);
        expect(validateFlow(neutralFlow(flow)).ok).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('every target writes the neutral code; the weft module, formatted, too, and imports back the same', {
    timeout: Math.max(30_000, RUNS * 1_500),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(flowPairs, async ({ flow, neutral }) => {
        for (const target of TARGET_NAMES) expectSameCode(target, emitted(flow, target), emitted(neutral, target));
        const weft = await exportFlowFiles(flow, 'weft');
        expectSameCode('weft, formatted', weft, emitted(neutral, 'weft'));
        const imported = importFlow(weft[0]!.contents);
        if (!imported.ok) throw new Error(`import failed: ${JSON.stringify(imported.errors)}\n${weft[0]!.contents}`);
        expect(canonicalFlow(imported.flow)).toEqual(canonicalFlow(flow));
      }),
      { numRuns: RUNS },
    );
  });

  it('the inngest and temporal modules, formatted, hold the neutral code', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(flowPairs, async ({ flow, neutral }) => {
        for (const target of ['inngest', 'temporal'] as const) {
          expectSameCode(`${target}, formatted`, await exportFlowFiles(flow, target), emitted(neutral, target));
        }
      }),
      { numRuns: FORMATTED_RUNS },
    );
  });
});
