/**
 * What the server tests of the `inngest` and `temporal` exports share: the conformance cases
 * an export can run (the others, with why), the exported modules written into a folder inside
 * this package (so `inngest`, `@temporalio/*` and `ai` resolve from here), and the check of a
 * run's result against the case.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES, type ConformanceCase, loadExamples } from '@weft/adapters/conformance';
import type { Json } from '@weft/engine';
import { expect } from 'vitest';
import { type ExportTargetName, exportFlowFiles } from '../export-flow.ts';

/** Starting a server from a cold cache builds its binary: minutes. */
export const SERVER_SETUP_TIMEOUT_MS = 15 * 60_000;
/** Per case, from start to the last check. */
export const CASE_TIMEOUT_MS = 60_000;

/**
 * The cases an export can run. An export answers `mock:` models inline and calls real
 * providers for the rest; it has no fixtures (recorded model turns are a Weft runner feature,
 * not part of the exported code), so a case that replays fixtures would call OpenAI or
 * Anthropic with keys it does not have. Those cases are left out here; the weft export runs
 * them (behaviour.test.ts).
 */
export const EXPORT_CASES: ConformanceCase[] = CASES.filter((testCase) => Object.keys(testCase.fixtures).length === 0);

/** Writes every example's export for `target` (as one set, so a spawn imports its child) into a fresh folder. */
export async function writeExports(target: ExportTargetName): Promise<{ folder: string; files: string[] }> {
  const folder = fileURLToPath(new URL(`../../.tmp-servers-${target}-${process.pid}/`, import.meta.url));
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const examples = loadExamples();
  const ids = [...examples.keys()];
  const files: string[] = [];
  for (const { flow } of examples.values()) {
    for (const file of await exportFlowFiles(flow, target, { flows: ids })) {
      writeFileSync(join(folder, file.path), file.contents);
      files.push(file.path);
    }
  }
  return { folder, files };
}

export type ExportRunResult = { status: 'completed'; output: Json } | { status: 'failed'; message: string };

/** The run ended as the case expects: the same output, or a failure naming the same reason. */
export function expectCaseResult(testCase: ConformanceCase, result: ExportRunResult): void {
  const want = testCase.expect;
  if (want.status === 'completed') {
    expect(result, 'the run completed').toEqual({ status: 'completed', output: want.output });
  } else {
    expect(result.status, `the run ${want.status}`).toBe(want.status);
    if (result.status === 'failed' && want.error) expect(result.message).toContain(want.error.message);
  }
}
