import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnknownRunError } from '../inprocess/errors.ts';
import { caseFromRun, RunNotCompletedError } from './case-from-run.ts';
import { flowOf, pricingDoc, pricingInput, type Recorder, recorder, sourceOf } from './test-support.ts';

const pricing = flowOf(pricingDoc);
const parent = flowOf({
  id: 'parent',
  steps: [
    { id: 'child', type: 'spawn', flow: 'pricing', input: { item: 'cake', qty: 1 } },
    { id: 'nap', type: 'sleep', duration: '1ms' },
  ],
  output: '=steps.child.output',
});

let rec: Recorder;
beforeEach(async () => {
  rec = await recorder(sourceOf(pricing, parent), async () => ({ approved: true, by: 'ana', comment: 'fine' }));
});
afterEach(async () => {
  await rec.close();
});

describe('caseFromRun', () => {
  it("holds the run's input, recorded calls, decisions, steps and output", async () => {
    const runId = await rec.record(pricing, pricingInput);
    const testCase = await caseFromRun(rec.store, runId, { name: 'tea for two' });
    const run = await rec.store.getRun(runId);
    expect(testCase).toMatchObject({
      weftTest: 1,
      name: 'tea for two',
      flow: { id: 'pricing', version: 1 },
      match: ['steps', 'output'],
      input: pricingInput,
      expect: {
        steps: ['ask', 'ask/llm#1', 'compute', 'gate', 'result'],
        output: { total: 6, said: 'price of tea', approvedBy: 'ana' },
      },
      fromRun: runId,
    });
    expect(testCase.expect.output).toEqual(run?.output);
    expect(testCase.recorded.map((entry) => [entry.stepId, entry.kind, entry.status])).toEqual([
      ['ask/llm#1', 'model-turn', 'completed'],
      ['compute', 'code', 'completed'],
    ]);
    // The decision's time is the one the approval step put in its output.
    const gateOutput = (await rec.store.readEvents(runId)).find(
      (event) => event.type === 'step.completed' && event.stepId === 'gate',
    );
    expect(testCase.approvals).toEqual({
      gate: {
        approved: true,
        by: 'ana',
        comment: 'fine',
        at: (gateOutput as unknown as { output: { at: string } }).output.at,
      },
    });
    expect(testCase.fixtures).toBeUndefined();
    expect(testCase.expect.outputSchema).toBeUndefined();
  });

  it('records a child run as its spawn result, and leaves sleeps out', async () => {
    const runId = await rec.record(parent);
    const testCase = await caseFromRun(rec.store, runId);
    expect(testCase.name).toBe(`parent-${runId.slice(4, 12)}`);
    expect(testCase.recorded).toEqual([
      expect.objectContaining({
        stepId: 'child',
        kind: 'spawn',
        output: { total: 3, said: 'price of cake', approvedBy: 'ana' },
      }),
    ]);
    expect(testCase.expect.steps).toEqual(['child', 'nap']);
  });

  it('infers an output schema when output-schema is to match, unless one is given', async () => {
    const runId = await rec.record(pricing, pricingInput);
    const inferred = await caseFromRun(rec.store, runId, { match: ['output-schema'] });
    expect(inferred.expect.outputSchema).toEqual({
      type: 'object',
      properties: { total: { type: 'number' }, said: { type: 'string' }, approvedBy: { type: 'string' } },
      required: ['total', 'said', 'approvedBy'],
    });
    const given = await caseFromRun(rec.store, runId, { match: ['output-schema'], outputSchema: { type: 'object' } });
    expect(given.expect.outputSchema).toEqual({ type: 'object' });
  });

  it('keeps the seed entries a seeded run (a replay, a test) was answered with', async () => {
    const source = await rec.record(pricing, pricingInput);
    const recorded = (await rec.store.loadJournal(source)).find((entry) => entry.stepId === 'compute')!;
    // The same call (its input hash), answered with another value: only the seed can give it.
    const pinned = { ...recorded, output: { total: 99 } };
    const { runId } = await rec.service.start({ flow: pricing, input: pricingInput, seed: [pinned] });
    await rec.settled();
    const testCase = await caseFromRun(rec.store, runId);
    expect(testCase.recorded.map((entry) => entry.stepId).sort()).toEqual(['ask/llm#1', 'compute']);
    expect(testCase.recorded.find((entry) => entry.stepId === 'compute')).toEqual(pinned);
    expect(testCase.expect.output).toMatchObject({ total: 99 });
  });

  it('keeps the fixtures the run had: a model turn is hashed with its fixture turn', async () => {
    const fixtures = { ask: [{ text: 'three coins' }] };
    const runId = await rec.record(pricing, pricingInput, fixtures);
    const testCase = await caseFromRun(rec.store, runId);
    expect(testCase.fixtures).toEqual(fixtures);
    expect(testCase.expect.output).toMatchObject({ said: 'three coins' });
  });

  it('refuses a run that has not completed, naming its status, and an unknown run', async () => {
    const failing = flowOf({ id: 'failing', steps: [{ id: 'stop', type: 'fail', message: 'no' }] });
    const runId = await rec.record(failing);
    await expect(caseFromRun(rec.store, runId)).rejects.toThrow(new RunNotCompletedError(runId, 'failed').message);
    await expect(caseFromRun(rec.store, runId)).rejects.toThrow(/is failed, not completed/);
    await expect(caseFromRun(rec.store, 'run_nope')).rejects.toBeInstanceOf(UnknownRunError);
  });
});
