import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPostgresUrl, openStore } from './index.ts';

describe('openStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-open-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts the default SQLite file under dataDir, creating the directory', async () => {
    const store = await openStore({ dataDir: join(dir, 'data') });
    expect(store.dialect).toBe('sqlite');
    expect(existsSync(join(dir, 'data', 'weft.db'))).toBe(true);
    await store.close();
  });

  it('opens a SQLite path or :memory: given as url', async () => {
    const file = await openStore({ url: join(dir, 'other', 'runs.db') });
    expect(existsSync(join(dir, 'other', 'runs.db'))).toBe(true);
    await file.close();
    const memory = await openStore({ url: ':memory:' });
    await memory.createRun({ id: 'r', flowId: 'f', flowVersion: 1, flow: {}, input: null, backend: 'inprocess' });
    expect((await memory.getRun('r'))?.input).toBeNull();
    await memory.close();
  });

  it('recognises PostgreSQL URLs', () => {
    expect(isPostgresUrl('postgres://u@h:5432/db')).toBe(true);
    expect(isPostgresUrl('postgresql://h/db')).toBe(true);
    expect(isPostgresUrl('data/weft.db')).toBe(false);
    expect(isPostgresUrl(':memory:')).toBe(false);
  });
});
