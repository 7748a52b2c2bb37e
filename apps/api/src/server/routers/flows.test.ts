import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustedContext } from '../context.ts';
import { createCaller } from '../router.ts';
import { type ApiServices, createServices } from '../services.ts';

const flow = (id: string, extra: Record<string, unknown> = {}) => ({
  irVersion: 1,
  id,
  name: `Flow ${id}`,
  steps: [{ id: 'a', type: 'transform', value: '=1' }],
  ...extra,
});

/** The rejection of `promise`, as the TRPCError and the shape an HTTP client would get. */
async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe('flows router', () => {
  let dir: string;
  let services: ApiServices;
  let caller: ReturnType<typeof createCaller>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weft-flows-'));
    services = await createServices({ dataDir: dir, env: {} });
    caller = createCaller(trustedContext(services));
  });
  afterAll(async () => {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, gets, lists and refuses an id that exists', async () => {
    const created = await caller.flows.create({ doc: flow('alpha') });
    expect(created).toMatchObject({
      id: 'alpha',
      version: 1,
      name: 'Flow alpha',
      doc: { ...flow('alpha'), version: 1 },
    });
    expect(await caller.flows.get({ id: 'alpha' })).toEqual(created);
    expect((await caller.flows.list()).find((f) => f.id === 'alpha')).toMatchObject({ latestVersion: 1 });
    const conflict = await failure(caller.flows.create({ doc: flow('alpha') }));
    expect(conflict.code).toBe('CONFLICT');
  });

  it('saves immutable versions and reads any of them', async () => {
    await caller.flows.create({ doc: flow('beta') });
    const v2 = await caller.flows.save({ id: 'beta', doc: flow('beta', { name: 'Beta two' }) });
    expect(v2).toMatchObject({ version: 2, name: 'Beta two' });
    expect((await caller.flows.get({ id: 'beta', version: 1 })).name).toBe('Flow beta');
    expect((await caller.flows.get({ id: 'beta' })).version).toBe(2);
    expect((await caller.flows.versions({ id: 'beta' })).map((v) => v.version)).toEqual([1, 2]);

    const mismatch = await failure(caller.flows.save({ id: 'beta', doc: flow('other') }));
    expect(mismatch.code).toBe('BAD_REQUEST');
    expect(mismatch.message).toContain('doc.id');
    expect((await failure(caller.flows.save({ id: 'nope', doc: flow('nope') }))).code).toBe('NOT_FOUND');
    const invalid = await failure(
      caller.flows.save({ id: 'beta', doc: flow('beta', { steps: [{ id: 'a', type: 'transform' }] }) }),
    );
    expect(invalid.code).toBe('BAD_REQUEST');
    expect((invalid.cause as unknown as { flowErrors: unknown[] }).flowErrors).toContainEqual(
      expect.objectContaining({ stepId: 'a', path: 'steps[0].value' }),
    );
    expect((await caller.flows.versions({ id: 'beta' })).length).toBe(2);
  });

  it('answers NOT_FOUND for unknown ids and versions', async () => {
    await caller.flows.create({ doc: flow('gamma') });
    for (const call of [
      caller.flows.get({ id: 'missing' }),
      caller.flows.get({ id: 'gamma', version: 9 }),
      caller.flows.versions({ id: 'missing' }),
      caller.flows.delete({ id: 'missing' }),
      caller.flows.duplicate({ id: 'missing', newId: 'x' }),
      caller.flows.export({ id: 'missing' }),
      caller.flows.export({ id: 'gamma', version: 2 }),
    ]) {
      const error = await failure(call);
      expect(error.code).toBe('NOT_FOUND');
    }
    expect((await failure(caller.flows.get({ id: 'gamma', version: 9 }))).message).toContain('no version 9');
  });

  it('refuses wrong types with issues naming the field', async () => {
    const cases: [Promise<unknown>, string][] = [
      [caller.flows.get({ id: 42 } as never), 'id'],
      [caller.flows.get({ id: 'Not A Slug' }), 'id'],
      [caller.flows.get({ id: 'gamma', version: 0 }), 'version'],
      [caller.flows.get({ id: 'gamma', version: 1.5 }), 'version'],
      [caller.flows.create({ doc: 'text' } as never), 'doc'],
      [caller.flows.create({} as never), 'doc'],
      [caller.flows.save({ id: 'beta', doc: [] } as never), 'doc'],
      [caller.flows.duplicate({ id: 'beta', newId: 'UPPER' }), 'newId'],
      [caller.flows.duplicate({ id: 'beta', newId: 'ok', name: '' }), 'name'],
      [caller.flows.import({ json: { not: 'text' } } as never), 'json'],
    ];
    for (const [call, path] of cases) {
      const error = await failure(call);
      expect(error.code).toBe('BAD_REQUEST');
      const issues = (error.cause as unknown as { issues: { path: PropertyKey[] }[] }).issues;
      expect(issues.map((issue) => issue.path.join('.'))).toContain(path);
    }
  });

  it('refuses an invalid flow with the engine errors pinned to step ids', async () => {
    const doc = flow('delta', {
      steps: [
        { id: 'first', type: 'transform', value: '=1' },
        { id: 'second', type: 'transform', value: 5, bogus: true },
        { id: 'third', type: 'spawn', flow: 'no-such-flow' },
      ],
    });
    const error = await failure(caller.flows.create({ doc }));
    expect(error.code).toBe('BAD_REQUEST');
    const flowErrors = (error.cause as unknown as { flowErrors: { stepId: string; path: string }[] }).flowErrors;
    expect(flowErrors.map((e) => e.stepId)).toContain('second');
    expect(error.message).toContain('second');
    expect(await caller.flows.list()).not.toContainEqual(expect.objectContaining({ id: 'delta' }));
    // The shape an HTTP client receives carries them too (trpc.ts's errorFormatter).
    const { getErrorShape } = await import('@trpc/server/unstable-core-do-not-import');
    const { appRouter } = await import('../router.ts');
    const shape = getErrorShape({
      config: appRouter._def._config,
      error,
      type: 'mutation',
      path: 'flows.create',
      input: undefined,
      ctx: undefined,
    }) as { data: { flowErrors?: unknown[] } };
    expect(shape.data.flowErrors).toEqual(flowErrors);
  });

  it('validates without throwing, pinning errors to steps and checking spawn targets and cycles', async () => {
    expect(await caller.flows.validate({ doc: flow('anything') })).toEqual({ ok: true });
    const bad = await caller.flows.validate({ doc: flow('bad', { steps: [{ id: 's1', type: 'nope' }] }) });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors[0]).toMatchObject({ stepId: 's1', path: 'steps[0].type' });
    expect((await caller.flows.validate({ doc: 'not a flow' })).ok).toBe(false);
    expect((await caller.flows.validate({ doc: null })).ok).toBe(false);

    const missing = await caller.flows.validate({
      doc: flow('spawner', { steps: [{ id: 'go', type: 'spawn', flow: 'ghost' }] }),
    });
    expect(!missing.ok && missing.errors.map((e) => e.stepId)).toContain('go');

    // ping spawns pong (stored); pong spawning ping closes a cycle.
    await caller.flows.create({ doc: flow('pong', { steps: [{ id: 'p', type: 'transform', value: 1 }] }) });
    await caller.flows.create({ doc: flow('ping', { steps: [{ id: 'call', type: 'spawn', flow: 'pong' }] }) });
    const cycle = await caller.flows.validate({
      doc: flow('pong', { steps: [{ id: 'back', type: 'spawn', flow: 'ping' }] }),
    });
    expect(cycle.ok).toBe(false);
    const cyclic = await failure(
      caller.flows.save({ id: 'pong', doc: flow('pong', { steps: [{ id: 'back', type: 'spawn', flow: 'ping' }] }) }),
    );
    expect(cyclic.code).toBe('BAD_REQUEST');
  });

  it('duplicates a flow under a new id', async () => {
    await caller.flows.create({ doc: flow('epsilon') });
    await caller.flows.save({ id: 'epsilon', doc: flow('epsilon', { description: 'v2' }) });
    const copy = await caller.flows.duplicate({ id: 'epsilon', newId: 'epsilon-copy' });
    expect(copy).toMatchObject({ id: 'epsilon-copy', version: 1, name: 'Flow epsilon (copy)' });
    expect(copy.doc).toMatchObject({ id: 'epsilon-copy', description: 'v2', version: 1 });
    const named = await caller.flows.duplicate({ id: 'epsilon', newId: 'epsilon-2', name: 'Second' });
    expect(named.name).toBe('Second');
    expect((await failure(caller.flows.duplicate({ id: 'epsilon', newId: 'epsilon-2' }))).code).toBe('CONFLICT');
  });

  it('lets exactly one of concurrent creates of one id win; the others are CONFLICT', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => caller.flows.create({ doc: flow('race', { name: `Race ${i}` }) })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(won[0]!.value).toMatchObject({ id: 'race', version: 1 });
    expect(lost.map((r) => (r.reason as TRPCError).code)).toEqual(['CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT']);
    expect(await caller.flows.versions({ id: 'race' })).toHaveLength(1);

    // Concurrent duplicates to one new id: the same.
    const dups = await Promise.allSettled(
      Array.from({ length: 5 }, () => caller.flows.duplicate({ id: 'race', newId: 'race-copy' })),
    );
    expect(dups.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      dups.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as TRPCError).code),
    ).toEqual(['CONFLICT', 'CONFLICT', 'CONFLICT', 'CONFLICT']);
    expect(await caller.flows.versions({ id: 'race-copy' })).toHaveLength(1);
  });

  it('deletes a flow', async () => {
    await caller.flows.create({ doc: flow('zeta') });
    expect(await caller.flows.delete({ id: 'zeta' })).toEqual({ id: 'zeta', deleted: true });
    expect((await failure(caller.flows.get({ id: 'zeta' }))).code).toBe('NOT_FOUND');
    expect((await caller.flows.list()).some((f) => f.id === 'zeta')).toBe(false);
    expect((await failure(caller.flows.delete({ id: 'zeta' }))).code).toBe('NOT_FOUND');
    // The id may be used again; its versions go on from where they were.
    expect((await caller.flows.create({ doc: flow('zeta') })).version).toBe(2);
  });

  it('exports pretty JSON and imports it back as a new flow or a new version', async () => {
    await caller.flows.create({ doc: flow('eta') });
    const exported = await caller.flows.export({ id: 'eta' });
    expect(exported.filename).toBe('eta.json');
    expect(exported.json).toBe(`${JSON.stringify({ ...flow('eta'), version: 1 }, null, 2)}\n`);
    expect((await caller.flows.export({ id: 'eta', version: 1 })).json).toBe(exported.json);

    const again = await caller.flows.import({ json: exported.json });
    expect(again).toMatchObject({ created: false, flow: { id: 'eta', version: 2 } });
    const fresh = await caller.flows.import({ json: JSON.stringify(flow('theta')) });
    expect(fresh).toMatchObject({ created: true, flow: { id: 'theta', version: 1 } });
  });

  it('refuses an import that is not JSON (with line and column), not an object, or invalid IR', async () => {
    const malformed = await failure(caller.flows.import({ json: '{\n  "id": "x",\n  oops\n}' }));
    expect(malformed.code).toBe('BAD_REQUEST');
    expect(malformed.message).toMatch(/line 3, column 3/);
    const truncated = await failure(caller.flows.import({ json: '{"id": "x"' }));
    expect(truncated.message).toMatch(/line 1, column \d+/);
    expect((await failure(caller.flows.import({ json: '[1, 2]' }))).code).toBe('BAD_REQUEST');
    const invalid = await failure(caller.flows.import({ json: JSON.stringify(flow('iota', { steps: [] })) }));
    expect(invalid.code).toBe('BAD_REQUEST');
    expect((invalid.cause as unknown as { flowErrors: { path: string }[] }).flowErrors[0]?.path).toBe('steps');
  });
});
