/**
 * Test cases on disk: a folder (`tests/` by default) of one JSON file per case, named
 * `<flowId>-<name or short run id>.json`, and running a folder's cases one after another with
 * a word after each (what the CLI's progress and the API's `tests.run` build on). The folder is
 * read flat: every `*.json` in it is expected to be a case, so a stray file is reported rather
 * than silently skipped.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { formatTestCase, readTestCase, type TestCase, TestCaseInvalidError } from './case-format.ts';
import { shortRunId } from './case-from-run.ts';
import { type CaseResult, type RunCaseOptions, runCase } from './run-case.ts';

export const DEFAULT_TESTS_DIR = 'tests';

/** `support-triage` + `Happy path!` → `support-triage-happy-path.json`; no name: the short run id. */
export function caseFileName(flowId: string, name: string | undefined, runId: string): string {
  const stem = name === undefined ? shortRunId(runId) : slug(name);
  const prefix = slug(flowId);
  return `${stem === prefix || stem.startsWith(`${prefix}-`) ? stem : `${prefix}-${stem || shortRunId(runId)}`}.json`;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 80);
}

/** Every `*.json` in the folder, sorted; a path to one file is that file. */
export async function listCaseFiles(path: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return [path];
    throw error;
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name));
}

/** Reads and validates one case; `label` names it in errors (default: the path). */
export async function loadCaseFile(path: string, label = path): Promise<TestCase> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TestCaseInvalidError(label, [{ path: '', message: `cannot be read (${(error as Error).message})` }], {
      cause: error,
    });
  }
  return readTestCase(text, label);
}

/** Writes a case (creating its folder); says whether a case was there before. */
export async function writeCaseFile(path: string, testCase: TestCase): Promise<{ replaced: boolean }> {
  await mkdir(dirname(path), { recursive: true });
  let replaced = true;
  try {
    await readFile(path);
  } catch {
    replaced = false;
  }
  await writeFile(path, formatTestCase(testCase));
  return { replaced };
}

export interface RunFilesOptions extends Omit<RunCaseOptions, 'file'> {
  /** How each file is named in results (default: the path as given). */
  label?: (path: string) => string;
  /** Told before each case starts and after it ends (progress). */
  onStart?: (file: string, index: number, total: number) => void;
  onResult?: (result: CaseResult, index: number, total: number) => void;
}

/** Runs each file's case in turn; an unreadable or invalid file is a result with its error. */
export async function runCaseFiles(paths: readonly string[], options: RunFilesOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const [index, path] of paths.entries()) {
    const file = options.label?.(path) ?? path;
    options.onStart?.(file, index, paths.length);
    let result: CaseResult;
    try {
      const testCase = await loadCaseFile(path, file);
      result = await runCase(testCase, { ...options, file });
    } catch (error) {
      result = {
        name: basename(path, '.json'),
        file,
        passed: false,
        durationMs: 0,
        error: (error as Error).message,
      };
    }
    results.push(result);
    options.onResult?.(result, index, paths.length);
  }
  return results;
}
