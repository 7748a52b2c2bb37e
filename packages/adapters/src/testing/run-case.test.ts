import { NonRetryableError, type StepCall } from '@weft/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCase } from './case-format.ts';
import { caseFromRun } from './case-from-run.ts';
import { NoRecordedResultError, offlineExecutors, type RefusedCall } from './offline-executors.ts';
import { runCase } from './run-case.ts';
import { flowOf, pricingDoc, pricingInput, type Recorder, recorder, sourceOf } from './test-support.ts';

const pricing = flowOf(pricingDoc);

/** The pricing flow with one step's fields replaced. */
function changed(stepId: string, fields: Record<string, unknown>) {
  return flowOf({
    ...pricingDoc,
    steps: pricingDoc.steps.map((step) => (step.id === stepId ? { ...step, ...fields } : step)),
  });
}

let rec: Recorder;
let saved: TestCase;
beforeAll(async () => {
  rec = await recorder(sourceOf(pricing), async () => ({ approved: true, by: 'ana' }));
  saved = await caseFromRun(rec.store, await rec.record(pricing, pricingInput), { name: 'tea' });
});
afterAll(async () => {
  await rec.close();
});

describe('runCase', () => {
  it('passes offline: every call answered from the recordings, the decision from the case', async () => {
    const result = await runCase(saved, { flows: sourceOf(pricing), file: 'tests/pricing-tea.json' });
    expect(result).toEqual({
      name: 'tea',
      file: 'tests/pricing-tea.json',
      flowId: 'pricing',
      passed: true,
      durationMs: expect.any(Number),
    });
  });

  it('catches a changed code step: its call is refused, not executed', async () => {
    const flows = sourceOf(changed('compute', { source: 'return { total: args.qty * 4 };' }));
    const result = await runCase(saved, { flows });
    expect(result.passed).toBe(false);
    expect(result.firstDifference).toBe(
      "step 'compute' ran with input the case has no recorded result for (a code step): the flow or its input changed since the case was saved",
    );
  });

  it('catches a changed input the same way, at the first call it reaches', async () => {
    const result = await runCase({ ...saved, input: { item: 'coffee', qty: 2 } }, { flows: sourceOf(pricing) });
    expect(result.firstDifference).toMatch(/^step 'ask\/llm#1' ran with input .* \(a model call\)/);
  });

  it('catches a changed transform through the output', async () => {
    const flows = sourceOf(
      changed('result', {
        value: {
          total: '=steps.compute.output.total * 2',
          said: '=steps.ask.output.text',
          approvedBy: '=steps.gate.output.by',
        },
      }),
    );
    const result = await runCase(saved, { flows });
    expect(result).toMatchObject({ passed: false, firstDifference: 'output.total: expected 6, got 12' });
  });

  it('catches a step the run no longer starts where it did', async () => {
    const flow = flowOf({
      ...pricingDoc,
      steps: [...pricingDoc.steps.slice(0, 3), { id: 'note', type: 'transform', value: 1 }, pricingDoc.steps[3]],
    });
    const result = await runCase(saved, { flows: sourceOf(flow) });
    expect(result.firstDifference).toBe("steps[4]: expected 'result' to start, the run started 'note' there");
  });

  it('matches by schema: other content passes, another shape fails', async () => {
    const schemaCase: TestCase = {
      ...saved,
      match: ['output-schema'],
      expect: {
        outputSchema: {
          type: 'object',
          properties: { total: { type: 'number', minimum: 1 }, said: { type: 'string' } },
          required: ['total', 'said'],
        },
      },
    };
    const reworded = changed('result', {
      value: { total: '=steps.compute.output.total + 1', said: 'something else entirely' },
    });
    expect(await runCase(schemaCase, { flows: sourceOf(reworded) })).toMatchObject({ passed: true });
    const reshaped = changed('result', { value: { total: '="six"', said: '=steps.ask.output.text' } });
    const result = await runCase(schemaCase, { flows: sourceOf(reshaped) });
    expect(result.passed).toBe(false);
    expect(result.firstDifference).toMatch(/^output\.total: .*number/);
    const missing = changed('result', { value: { total: 6 } });
    expect((await runCase(schemaCase, { flows: sourceOf(missing) })).firstDifference).toBe(
      'output.said: is required by expect.outputSchema',
    );
  });

  it('parks on an approval the case has no decision for, and says so', async () => {
    const result = await runCase({ ...saved, approvals: {} }, { flows: sourceOf(pricing) });
    expect(result.firstDifference).toBe("the run waits for the approval at 'gate', which the case has no decision for");
  });

  it('gives a recorded timeout as a timeout, which the approval step applies', async () => {
    const timedOut: TestCase = { ...saved, approvals: { gate: { timedOut: true, at: '2025-01-01T00:00:00.000Z' } } };
    const result = await runCase(timedOut, { flows: sourceOf(pricing) });
    expect(result.firstDifference).toBe('output.approvedBy: expected "ana", got "timeout"');
  });

  it('fails a run that does not end in time, and cancels it', async () => {
    const slow = flowOf({ id: 'slow', steps: [{ id: 'nap', type: 'sleep', duration: '30s' }] });
    const slowCase: TestCase = { ...saved, flow: { id: 'slow', version: 1 }, approvals: {}, recorded: [] };
    const started = Date.now();
    const result = await runCase(slowCase, { flows: sourceOf(slow), timeoutMs: 200 });
    expect(result.firstDifference).toBe('the run did not end within 0.2 s (a sleep, or a step that waits)');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports a flow it cannot find as an error, not a difference', async () => {
    const result = await runCase(saved, { flows: sourceOf(), flowsLabel: 'flows/' });
    expect(result).toMatchObject({ passed: false, error: "flow 'pricing' not found in flows/ (or it is invalid)" });
    expect(result.firstDifference).toBeUndefined();
  });
});

describe('offlineExecutors', () => {
  it('refuses every kind of call, non-retryably, naming the step', async () => {
    const refused: RefusedCall[] = [];
    const executors = offlineExecutors((call) => refused.push(call));
    const ctx = { signal: new AbortController().signal, runId: 'r', emitDelta: () => {} };
    const calls = [
      { kind: 'model-turn', input: {} },
      { kind: 'tool', input: {} },
      { kind: 'code', input: {} },
      { kind: 'http', input: {} },
      { kind: 'something-new', input: {} },
    ] as unknown as StepCall[];
    for (const [index, call] of calls.entries()) {
      const error = await executors.execute(call, { ...ctx, stepId: `s${index}` }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NoRecordedResultError);
      expect(error).toBeInstanceOf(NonRetryableError);
    }
    expect(refused.map((call) => `${call.stepId}:${call.kind}`)).toEqual([
      's0:model-turn',
      's1:tool',
      's2:code',
      's3:http',
      's4:something-new',
    ]);
    expect(new NoRecordedResultError({ stepId: 'fetch', kind: 'http' }).message).toBe(
      "the test case has no recorded result for 'fetch' with this input (an http call): the flow or its input changed since the case was saved",
    );
  });
});
