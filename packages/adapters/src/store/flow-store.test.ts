/**
 * The run store's saved flows over both dialects: immutable increasing versions, atomic create,
 * concurrent saves across connections, and delete (numbering continues when the id is reused).
 */
import { describe, expect, it } from 'vitest';
import { postgresBackend, sqliteBackend, storeHarness } from './test-support.ts';

// The same behaviours, word for word, against both dialects.
describe.each([sqliteBackend(), postgresBackend()].map((b) => [b.name, b] as const))('%s run store', (_, backend) => {
  const { store, open, uid } = storeHarness(backend);
  const flowDoc = (id: string, name = `Flow ${id}`, extra: Record<string, unknown> = {}) => ({
    irVersion: 1,
    id,
    name,
    ...extra,
    steps: [{ id: 'a', type: 'transform', value: '=1' }],
  });

  it('saves flows as increasing immutable versions and reads the latest or a given one', async () => {
    const id = uid('flow');
    const v1 = await store.flows.save(flowDoc(id, 'First', { version: 7 }));
    expect(v1).toMatchObject({ id, version: 1, name: 'First' });
    // The doc's own version is replaced in place (key order kept).
    expect(JSON.stringify(v1.doc)).toBe(JSON.stringify(flowDoc(id, 'First', { version: 1 })));
    const v2 = await store.flows.save(flowDoc(id, 'Second'));
    expect(v2.version).toBe(2);
    expect(v2.doc).toEqual({ ...flowDoc(id, 'Second'), version: 2 });

    expect(await store.flows.get(id)).toEqual(v2);
    expect(await store.flows.get(id, 1)).toEqual(v1);
    expect(await store.flows.get(id, 3)).toBeUndefined();
    expect(await store.flows.get('missing')).toBeUndefined();
    expect((await store.flows.versions(id)).map((v) => [v.version, v.name])).toEqual([
      [1, 'First'],
      [2, 'Second'],
    ]);
    const summary = (await store.flows.list()).find((f) => f.id === id);
    expect(summary).toMatchObject({ id, name: 'Second', latestVersion: 2, createdAt: v1.createdAt });
    expect(summary?.updatedAt).toBeGreaterThanOrEqual(v1.createdAt);
  });

  it('creates a flow atomically: of concurrent creates of one id, across connections, exactly one wins', async () => {
    const id = uid('flow');
    const other = await open();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? store : other).flows.create(flowDoc(id, `c${i}`))),
    );
    const won = results.filter((r) => r !== undefined);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ id, version: 1 });
    expect(await store.flows.versions(id)).toHaveLength(1);
    expect(await store.flows.get(id)).toEqual(won[0]);
    // Taken: no new version, nothing changed.
    expect(await store.flows.create(flowDoc(id, 'again'))).toBeUndefined();
    expect((await store.flows.list()).find((f) => f.id === id)).toMatchObject({ latestVersion: 1, name: won[0]!.name });
    // A deleted flow's id is free again, at its next version (as save revives it).
    await store.flows.delete(id);
    const revived = await other.flows.create(flowDoc(id, 'Revived'));
    expect(revived).toMatchObject({ id, version: 2, name: 'Revived' });
    expect((await store.flows.versions(id)).map((v) => v.version)).toEqual([2]);
  });

  it('gives concurrent saves of one flow distinct versions, across connections', async () => {
    const id = uid('flow');
    const other = await open();
    const saved = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? store : other).flows.save(flowDoc(id, `n${i}`))),
    );
    expect(saved.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await store.flows.versions(id)).toHaveLength(12);
    expect((await other.flows.get(id))?.version).toBe(12);
  });

  it('deletes a flow with its versions; saving the id again continues the numbering', async () => {
    const id = uid('flow');
    await store.flows.save(flowDoc(id));
    await store.flows.save(flowDoc(id));
    expect(await store.flows.delete(id)).toBe(true);
    expect(await store.flows.delete(id)).toBe(false);
    expect(await store.flows.delete('missing')).toBe(false);
    expect(await store.flows.get(id)).toBeUndefined();
    expect(await store.flows.get(id, 1)).toBeUndefined();
    expect(await store.flows.versions(id)).toEqual([]);
    expect((await store.flows.list()).some((f) => f.id === id)).toBe(false);
    const again = await store.flows.save(flowDoc(id, 'Reborn'));
    expect(again.version).toBe(3);
    expect((await store.flows.list()).find((f) => f.id === id)).toMatchObject({ latestVersion: 3, name: 'Reborn' });
    expect((await store.flows.versions(id)).map((v) => v.version)).toEqual([3]);
  });
});
