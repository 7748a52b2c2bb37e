/**
 * migrateFlow, driven by a synthetic table (IR version 1 has no real migration yet): a document
 * moves forward one version at a time, each migration seeing the previous one's result; missing,
 * invalid and newer versions and gaps in the table fail with their messages; the input document
 * is never written to. The last case checks the real table has a migration for every old version.
 */
import { describe, expect, it } from 'vitest';
import { IR_VERSION } from './flow.ts';
import { MIGRATIONS, type Migration, migrateFlow } from './migrate.ts';

type Doc = Record<string, unknown>;

/** A table for IR version 3 (1 → 2 renames `title` to `name`, 2 → 3 turns step ids into steps); `seen` logs each call. */
function table(seen: Doc[] = []): Migration[] {
  return [
    {
      from: 1,
      migrate: (doc) => {
        seen.push(doc);
        const { title, ...rest } = doc;
        return { ...rest, name: title };
      },
    },
    {
      from: 2,
      migrate: (doc) => {
        seen.push(doc);
        return { ...doc, steps: (doc.steps as string[]).map((id) => ({ id, type: 'noop' })) };
      },
    },
  ];
}

const v1 = (): Doc => ({ irVersion: 1, id: 'demo', title: 'Demo', steps: ['a', 'b'] });
const v3 = {
  irVersion: 3,
  id: 'demo',
  name: 'Demo',
  steps: [
    { id: 'a', type: 'noop' },
    { id: 'b', type: 'noop' },
  ],
};

/** Freezes `value` and everything in it, so any write to it throws (test modules are strict). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

describe('migrateFlow', () => {
  it('moves a version 1 document to 3 through 1 → 2, then 2 → 3', () => {
    const seen: Doc[] = [];
    expect(migrateFlow(v1(), table(seen), 3)).toEqual({ ok: true, doc: v3, from: 1 });
    // The second migration got the first one's result, stamped with version 2.
    expect(seen).toEqual([v1(), { irVersion: 2, id: 'demo', name: 'Demo', steps: ['a', 'b'] }]);
  });

  it('starts at the version the document has', () => {
    const seen: Doc[] = [];
    const v2 = { irVersion: 2, id: 'demo', name: 'Demo', steps: ['a', 'b'] };
    expect(migrateFlow(v2, table(seen), 3)).toEqual({ ok: true, doc: v3, from: 2 });
    expect(seen).toEqual([v2]);
  });

  it('finds each migration by its `from`, whatever the order of the table', () => {
    expect(migrateFlow(v1(), table().reverse(), 3)).toEqual({ ok: true, doc: v3, from: 1 });
  });

  it('returns a current document as it is, running nothing', () => {
    const seen: Doc[] = [];
    const doc = { ...v3 };
    const result = migrateFlow(doc, table(seen), 3);
    expect(result).toEqual({ ok: true, doc: v3, from: 3 });
    expect(result.ok && result.doc).toBe(doc);
    expect(seen).toEqual([]);
  });

  it('sets irVersion itself, whatever a migration returns', () => {
    const sloppy: Migration[] = [{ from: 1, migrate: ({ irVersion: _, ...doc }) => ({ ...doc, irVersion: 99 }) }];
    expect(migrateFlow({ irVersion: 1, id: 'x' }, sloppy, 2)).toEqual({
      ok: true,
      doc: { irVersion: 2, id: 'x' },
      from: 1,
    });
  });

  it('fails at a gap in the table, naming the version it cannot leave', () => {
    const [oneToTwo, twoToThree] = table();
    expect(migrateFlow(v1(), [oneToTwo!], 3)).toEqual({ ok: false, message: 'no migration from irVersion 2' });
    expect(migrateFlow(v1(), [twoToThree!], 3)).toEqual({ ok: false, message: 'no migration from irVersion 1' });
    expect(migrateFlow(v1(), [], 2)).toEqual({ ok: false, message: 'no migration from irVersion 1' });
  });

  it('refuses a document from a newer Weft', () => {
    expect(migrateFlow({ ...v3, irVersion: 4 }, table(), 3)).toEqual({
      ok: false,
      message: 'irVersion 4 was written by a newer Weft; this one reads up to 3',
    });
  });

  it.each<[string, unknown]>([
    ['missing', undefined],
    ['null', null],
    ['zero', 0],
    ['negative', -1],
    ['fractional', 1.5],
    ['NaN', Number.NaN],
    ['a string', '1'],
  ])('refuses an irVersion that is %s', (_, irVersion) => {
    const doc = irVersion === undefined ? { id: 'x' } : { id: 'x', irVersion };
    expect(migrateFlow(doc, table(), 3)).toEqual({
      ok: false,
      message: 'irVersion must be a positive integer (this Weft reads irVersion 1 to 3)',
    });
    expect(migrateFlow(doc, [], 1)).toEqual({
      ok: false,
      message: 'irVersion must be a positive integer (this Weft reads irVersion 1)',
    });
  });

  it.each<[string, unknown]>([
    ['a string', 'flow'],
    ['an array', [{ irVersion: 1 }]],
    ['null', null],
  ])('refuses a document that is %s', (_, doc) => {
    expect(migrateFlow(doc, table(), 3)).toEqual({ ok: false, message: 'a flow must be a JSON object' });
  });

  it('never writes to the input document, even when a migration hands it back', () => {
    const doc = deepFreeze(v1());
    const identity: Migration[] = [{ from: 1, migrate: (d) => d }, ...table().slice(1)];
    const result = migrateFlow(doc, identity, 3);
    expect(result).toEqual({
      ok: true,
      doc: {
        ...v1(),
        irVersion: 3,
        steps: [
          { id: 'a', type: 'noop' },
          { id: 'b', type: 'noop' },
        ],
      },
      from: 1,
    });
    expect(doc).toEqual(v1());
    expect(migrateFlow(deepFreeze(v1()), table(), 3).ok).toBe(true);
  });

  it('has a real migration from every older irVersion to the current one, and none past it', () => {
    const froms = MIGRATIONS.map((migration) => migration.from).sort((a, b) => a - b);
    expect(froms).toEqual(Array.from({ length: IR_VERSION - 1 }, (_, i) => i + 1));
    expect(migrateFlow({ irVersion: IR_VERSION, id: 'x' })).toEqual({
      ok: true,
      doc: { irVersion: IR_VERSION, id: 'x' },
      from: IR_VERSION,
    });
  });
});
