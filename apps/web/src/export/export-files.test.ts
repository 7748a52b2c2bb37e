import { describe, expect, it } from 'vitest';
import { codeBlob, downloadLabel, downloadName, importNotice, parseImportFailure } from './export-files.ts';

describe('downloadName', () => {
  it.each([
    ['support-triage.ts', 'support-triage.ts'],
    ['support-triage.workflow.ts', 'support-triage.workflow.ts'],
    ['src/flows/support-triage.activities.ts', 'support-triage.activities.ts'],
    ['..\\evil.ts', 'evil.ts'],
    ['weird name?.ts', 'weird-name-.ts'],
    ['noext', 'noext.ts'],
    ['flow.mts', 'flow.mts'],
    ['', 'flow.ts'],
    ['../', 'flow.ts'],
  ])('%j downloads as %j', (path, name) => {
    expect(downloadName(path)).toBe(name);
  });
});

describe('codeBlob', () => {
  it('is UTF-8 TypeScript ending in a newline', async () => {
    const blob = codeBlob({ path: 'a.ts', contents: "const s = 'é';" });
    expect(blob.type).toBe('text/typescript;charset=utf-8');
    expect(await blob.text()).toBe("const s = 'é';\n");
    expect(await codeBlob({ path: 'a.ts', contents: 'x\n' }).text()).toBe('x\n');
  });
});

describe('downloadLabel', () => {
  it('counts files only when there are several', () => {
    expect(downloadLabel(1)).toBe('Download');
    expect(downloadLabel(2)).toBe('Download 2 files');
  });
});

describe('parseImportFailure', () => {
  it('reads the summary and every line:column problem', () => {
    const failure = parseImportFailure(
      "flow.ts cannot be imported (2 problems):\n4:30 a flow cannot read the environment\n5:33 unknown name 'nope'\nat character 0",
    );
    expect(failure).toEqual({
      summary: 'flow.ts cannot be imported (2 problems)',
      problems: [
        { line: 4, column: 30, message: 'a flow cannot read the environment' },
        { line: 5, column: 33, message: "unknown name 'nope'\nat character 0" },
      ],
    });
  });

  it('keeps any other message whole, with no problems', () => {
    expect(parseImportFailure('Failed to fetch')).toEqual({ summary: 'Failed to fetch', problems: [] });
  });
});

describe('importNotice', () => {
  it('says when the id was taken', () => {
    expect(importNotice({ flow: { id: 'a', name: 'A' }, renamedFrom: null })).toBe('Imported A');
    expect(importNotice({ flow: { id: 'a-2', name: 'A' }, renamedFrom: 'a' })).toBe(
      "Imported A as a-2: a flow 'a' exists already",
    );
  });
});
