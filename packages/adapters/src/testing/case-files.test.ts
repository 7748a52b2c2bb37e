import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaseFileCollisionError, caseFileName, listCaseFiles, runCaseFiles, writeCaseFile } from './case-files.ts';
import { formatTestCase, type TestCase } from './case-format.ts';
import { caseFromRun } from './case-from-run.ts';
import type { CaseResult } from './run-case.ts';
import { flowOf, pricingDoc, pricingInput, recorder, sourceOf } from './test-support.ts';

const pricing = flowOf(pricingDoc);
let dir: string;
let saved: TestCase;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-cases-'));
  const rec = await recorder(sourceOf(pricing), async () => ({ approved: true, by: 'ana' }));
  saved = await caseFromRun(rec.store, await rec.record(pricing, pricingInput));
  await rec.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('case files', () => {
  it('are named after the flow and the name, or the short run id', () => {
    expect(caseFileName('pricing', undefined, 'run_3f9a1c2e55aa')).toBe('pricing-3f9a1c2e.json');
    expect(caseFileName('pricing', 'Tea for two!', 'run_3f9a1c2e55aa')).toBe('pricing-tea-for-two.json');
    expect(caseFileName('pricing', 'pricing-tea', 'run_x')).toBe('pricing-tea.json');
    expect(caseFileName('pricing', '../../etc/passwd', 'run_3f9a1c2e')).toBe('pricing-etc-passwd.json');
    expect(caseFileName('pricing', '///', 'run_3f9a1c2e')).toBe('pricing-3f9a1c2e.json');
  });

  it('are written in their format, and say when they replace one', async () => {
    const path = join(dir, 'suite', 'pricing-tea.json');
    expect(await writeCaseFile(path, saved)).toEqual({ replaced: false });
    expect(await readFile(path, 'utf8')).toBe(formatTestCase(saved));
    expect(await writeCaseFile(path, saved)).toEqual({ replaced: true });
  });

  it('refuse to overwrite a different case that maps to the same file, unless asked', async () => {
    // Two names, one slug: `Tea for two!` and `tea for two` are both pricing-tea-for-two.json.
    const first = { ...saved, name: 'Tea for two!' };
    const second = { ...saved, name: 'tea for two', input: { item: 'tea', qty: 2 } };
    const file = caseFileName('pricing', second.name, 'run_x');
    expect(file).toBe(caseFileName('pricing', first.name, 'run_x'));
    const path = join(dir, 'collide', file);
    await writeCaseFile(path, first);
    await expect(writeCaseFile(path, second)).rejects.toThrow(
      new CaseFileCollisionError(path, 'tea for two', 'Tea for two!'),
    );
    expect(String(new CaseFileCollisionError(path, 'tea for two', 'Tea for two!').message)).toBe(
      `test 'tea for two' would overwrite test 'Tea for two!' in ${path} (both names give that file): ` +
        'choose another name, or pass overwrite (--force) to replace it',
    );
    expect(await readFile(path, 'utf8')).toBe(formatTestCase(first));
    // A file that is not a case is not overwritten either.
    const stray = join(dir, 'collide', 'pricing-notes.json');
    await writeFile(stray, 'my notes');
    await expect(writeCaseFile(stray, second)).rejects.toThrow(/not a valid test case: pass overwrite/);
    expect(await readFile(stray, 'utf8')).toBe('my notes');
    // Asked to: replaced.
    expect(await writeCaseFile(path, second, { overwrite: true })).toEqual({ replaced: true });
    expect(await readFile(path, 'utf8')).toBe(formatTestCase(second));
  });

  it('run one after another, an invalid file being a result with its error', async () => {
    const suite = join(dir, 'suite');
    await writeCaseFile(join(suite, 'pricing-changed.json'), {
      ...saved,
      name: 'changed',
      input: { item: 'tea', qty: 3 },
    });
    await writeFile(join(suite, 'stray.json'), '{"weftTest": 1}');
    await writeFile(join(suite, 'notes.txt'), 'not a case');
    const files = await listCaseFiles(suite);
    expect(files.map((file) => file.slice(suite.length + 1))).toEqual([
      'pricing-changed.json',
      'pricing-tea.json',
      'stray.json',
    ]);
    const seen: string[] = [];
    const results = await runCaseFiles(files, {
      flows: sourceOf(pricing),
      label: (path) => path.slice(dir.length + 1),
      onStart: (file, index, total) => seen.push(`start ${index + 1}/${total} ${file}`),
      onResult: (result: CaseResult) => seen.push(`${result.passed ? 'pass' : 'fail'} ${result.file}`),
    });
    expect(results.map((result) => [result.file, result.passed])).toEqual([
      ['suite/pricing-changed.json', false],
      ['suite/pricing-tea.json', true],
      ['suite/stray.json', false],
    ]);
    expect(results[0]?.firstDifference).toMatch(/^step 'compute' ran with input/);
    expect(results[2]?.error).toMatch(/^suite\/stray\.json is not a valid test case: .*name/);
    expect(seen).toEqual([
      'start 1/3 suite/pricing-changed.json',
      'fail suite/pricing-changed.json',
      'start 2/3 suite/pricing-tea.json',
      'pass suite/pricing-tea.json',
      'start 3/3 suite/stray.json',
      'fail suite/stray.json',
    ]);
    expect(await listCaseFiles(join(suite, 'pricing-tea.json'))).toEqual([join(suite, 'pricing-tea.json')]);
  });
});
