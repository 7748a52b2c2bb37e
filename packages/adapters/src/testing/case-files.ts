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

/**
 * A case file already holds a different case: two names can slug to one file (`Happy path!` and
 * `happy path`), and writing would silently lose the other case.
 */
export class CaseFileCollisionError extends Error {
  readonly path: string;
  readonly caseName: string;
  /** The name of the case in the file, or undefined when the file is not a readable case. */
  readonly existingName: string | undefined;

  constructor(path: string, name: string, existingName: string | undefined) {
    super(
      existingName === undefined
        ? `test '${name}' would overwrite ${path}, which is not a valid test case: pass overwrite (--force) to replace it`
        : `test '${name}' would overwrite test '${existingName}' in ${path} (both names give that file): ` +
            'choose another name, or pass overwrite (--force) to replace it',
    );
    this.name = 'CaseFileCollisionError';
    this.path = path;
    this.caseName = name;
    this.existingName = existingName;
  }
}

/**
 * Writes a case (creating its folder); says whether a case was there before. A file holding the
 * same case name is replaced (saving a case again); one holding another case, or something that
 * is not a case, is refused with `CaseFileCollisionError` unless `overwrite` is set.
 */
export async function writeCaseFile(
  path: string,
  testCase: TestCase,
  options: { overwrite?: boolean } = {},
): Promise<{ replaced: boolean }> {
  await mkdir(dirname(path), { recursive: true });
  let existing: string;
  try {
    existing = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // `wx`: a case written by someone else since the read is refused, not overwritten.
    try {
      await writeFile(path, formatTestCase(testCase), { flag: options.overwrite ? 'w' : 'wx' });
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code === 'EEXIST') return writeCaseFile(path, testCase, options);
      throw raced;
    }
    return { replaced: false };
  }
  if (!options.overwrite) {
    const existingName = nameOfCase(existing, path);
    if (existingName !== testCase.name) throw new CaseFileCollisionError(path, testCase.name, existingName);
  }
  await writeFile(path, formatTestCase(testCase));
  return { replaced: true };
}

function nameOfCase(text: string, path: string): string | undefined {
  try {
    return readTestCase(text, path).name;
  } catch {
    return undefined;
  }
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
