import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputArg } from './files.ts';

describe('--input', () => {
  it('refuses a "__proto__" key naming where, instead of dropping it (issue 27)', async () => {
    await expect(readInputArg('{"ticket":{"__proto__":{"admin":true}}}', undefined)).rejects.toThrow(
      '--input: ticket.__proto__: "__proto__" keys are not allowed',
    );
    const dir = await mkdtemp(join(tmpdir(), 'weft-input-'));
    try {
      const file = join(dir, 'input.json');
      await writeFile(file, '[{"__proto__":1}]');
      await expect(readInputArg(`@${file}`, undefined)).rejects.toThrow(
        `input file ${file}: [0].__proto__: "__proto__" keys are not allowed`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await readInputArg('{"ticket":{"proto":1}}', undefined)).toEqual({ ticket: { proto: 1 } });
  });
});
