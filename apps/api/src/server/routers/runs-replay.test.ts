/**
 * runs.replay and runs.replays through createCaller: a replay answers what completed before the
 * chosen checkpoint from the source run's journal, pins what it is told, records its lineage,
 * and names the field when a checkpoint is unknown.
 */
import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type FlowDoc, type TestServer, testServices, waitForStatus } from '../test-support.ts';

/** Three model turns on the offline mock provider, each reading the one before. */
const threeTurns: FlowDoc = {
  irVersion: 1,
  id: 'three-turns',
  name: 'Three turns',
  steps: [
    { id: 'a', type: 'llm', model: 'mock:echo', prompt: 'one' },
    { id: 'b', type: 'llm', model: 'mock:echo', prompt: 'two after {{ steps.a.output.text }}' },
    { id: 'c', type: 'llm', model: 'mock:echo', prompt: 'three after {{ steps.b.output.text }}' },
  ],
  output: '=steps.c.output.text',
};

let server: TestServer;
beforeEach(async () => {
  server = await testServices();
  await server.services.store.flows.save(threeTurns);
});
afterEach(async () => {
  await server.close();
});

async function completedRun(): Promise<string> {
  const { runId } = await server.caller().runs.start({ flowId: 'three-turns' });
  expect(await waitForStatus(server.services, runId, ['completed', 'failed'])).toBe('completed');
  return runId;
}

it('replays from a checkpoint: earlier ones are reused, the rest run, the lineage is recorded', async () => {
  const api = server.caller();
  const source = await completedRun();
  const preview = await api.runs.replayPreview({ runId: source, from: 'b' });
  expect(preview).toEqual({
    reused: ['a/llm#1'],
    pinned: [],
    rerun: ['b', 'b/llm#1', 'c', 'c/llm#1'],
    sideEffects: [],
    tokensSaved: { input: 1, output: 1 },
    approvals: [],
    notReused: [],
    flowVersion: 1,
    costSaved: { usd: 0, unpriced: [] },
  });
  const replay = await api.runs.replay({ runId: source, from: 'b' });
  expect(replay).toMatchObject({ reused: ['a/llm#1'], pinned: [] });
  expect(await waitForStatus(server.services, replay.runId, ['completed', 'failed'])).toBe('completed');
  const [original, replayed] = await Promise.all([
    api.runs.get({ runId: source }),
    api.runs.get({ runId: replay.runId }),
  ]);
  expect(replayed.run.output).toEqual(original.run.output);
  expect(replayed.run.replayOf).toEqual({ runId: source, checkpoint: 'b' });
  expect(original.run.replayOf).toBeNull();
  expect((await api.runs.replays({ runId: source })).map((run) => run.id)).toEqual([replay.runId]);
});

it('pins a checkpoint to a given value, which the steps after it read', async () => {
  const api = server.caller();
  const source = await completedRun();
  const pinned = await api.runs.replay({
    runId: source,
    from: 'b',
    // An llm step's checkpoints are its model turns: b's only turn is b/llm#1.
    pins: { 'b/llm#1': 'PINNED' },
  });
  expect(pinned).toMatchObject({ reused: ['a/llm#1'], pinned: ['b/llm#1'] });
  expect(await waitForStatus(server.services, pinned.runId, ['completed', 'failed'])).toBe('completed');
  const { run } = await api.runs.get({ runId: pinned.runId });
  expect(String(run.output)).toContain('three after PINNED');
});

it('names the field when a checkpoint is unknown, and the run when it is', async () => {
  const api = server.caller();
  const source = await completedRun();
  const unknownFrom = await api.runs.replay({ runId: source, from: 'nope' }).catch((error: unknown) => error);
  expect(unknownFrom).toBeInstanceOf(TRPCError);
  expect((unknownFrom as TRPCError).code).toBe('BAD_REQUEST');
  expect((unknownFrom as TRPCError).message).toMatch(
    /^from: run has no checkpoint 'nope'; it has: a, a\/llm#1, b, b\/llm#1, c, c\/llm#1/,
  );
  const unknownPin = await api.runs.replay({ runId: source, from: 'b', pins: { zz: 1 } }).catch((e: unknown) => e);
  expect((unknownPin as TRPCError).message).toMatch(/^pin: run has no checkpoint 'zz'/);
  const unknownRun = await api.runs.replay({ runId: 'run_nope', from: 'b' }).catch((error: unknown) => error);
  expect((unknownRun as TRPCError).code).toBe('NOT_FOUND');
});

it('replays onto the saved current version: the preview names what is not reused, the replay does exactly that', async () => {
  const api = server.caller();
  const source = await completedRun();
  const steps = threeTurns.steps as unknown[];
  await api.flows.save({
    id: 'three-turns',
    doc: {
      ...threeTurns,
      steps: [steps[0], { id: 'x', type: 'llm', model: 'mock:echo', prompt: 'new' }, ...steps.slice(1)],
    },
  });
  const request = { runId: source, from: 'c', version: 'current' as const };
  const preview = await api.runs.replayPreview(request);
  expect(preview).toMatchObject({
    flowVersion: 2,
    reused: ['a/llm#1'],
    notReused: [{ checkpoint: 'b/llm#1', reason: "comes after the added step 'x' in the new version" }],
  });
  const replay = await api.runs.replay(request);
  expect(await waitForStatus(server.services, replay.runId, ['completed', 'failed'])).toBe('completed');
  const { run, state } = await api.runs.get({ runId: replay.runId });
  expect(run.flowVersion).toBe(2);
  const reused = Object.values(state.steps).flatMap((step) => (step.reused ? [step.stepId] : []));
  expect(reused).toEqual(preview.reused);
  // The flow's two versions, compared.
  const versions = await api.flows.compare({ id: 'three-turns', a: 1, b: 2 });
  expect(versions.steps.filter((step) => step.kind !== 'same')).toEqual([
    { stepId: 'x', stepType: 'llm', kind: 'added' },
  ]);
  const missing = await api.flows.compare({ id: 'three-turns', a: 1, b: 9 }).catch((error: unknown) => error);
  expect((missing as TRPCError).message).toBe("flow 'three-turns' has no version 9");
});

it('refuses side effects without confirmation (naming them), runs a step live on request, and compares two runs', async () => {
  const api = server.caller();
  await server.services.store.flows.save({
    irVersion: 1,
    id: 'effects',
    name: 'Effects',
    steps: [
      { id: 'a', type: 'llm', model: 'mock:echo', prompt: 'one' },
      { id: 'charge', type: 'code', source: 'return 42;' },
      { id: 'c', type: 'llm', model: 'mock:echo', prompt: 'total {{ steps.charge.output }}' },
    ],
    output: '=steps.c.output.text',
  });
  const { runId: source } = await api.runs.start({ flowId: 'effects' });
  expect(await waitForStatus(server.services, source, ['completed', 'failed'])).toBe('completed');
  const refused = await api.runs.replay({ runId: source, from: 'charge' }).catch((error: unknown) => error);
  expect((refused as TRPCError).code).toBe('PRECONDITION_FAILED');
  expect((refused as TRPCError).message).toMatch(/^confirmSideEffects: .*charge \(code\)/);
  const live = await api.runs.replay({ runId: source, from: 'c', live: ['a'], confirmSideEffects: true });
  expect(live).toMatchObject({
    reused: ['charge'],
    notReused: [{ checkpoint: 'a/llm#1', reason: "step 'a' asked to run live" }],
  });
  expect(await waitForStatus(server.services, live.runId, ['completed', 'failed'])).toBe('completed');
  const comparison = await api.runs.compare({ a: source, b: live.runId });
  expect(comparison.firstDivergence).toBeNull();
  expect(comparison.output.same).toBe(true);
  expect(comparison.steps.map((step) => step.kind)).toEqual(comparison.steps.map(() => 'same'));
  expect(comparison.steps.length).toBeGreaterThan(3);
  const unknown = await api.runs.compare({ a: source, b: 'run_nope' }).catch((error: unknown) => error);
  expect((unknown as TRPCError).code).toBe('NOT_FOUND');
});
