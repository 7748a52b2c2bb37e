/**
 * A code step whose result nests deeper than the host's recursive JSON helpers can follow
 * (hashing, canonical JSON, the reducer's copies): refused at the sandbox with an error that
 * names the step and the limit, and the run, its row and its state stay readable. A result at
 * the limit goes through the whole path, into the next code step and the run's output.
 */
import { runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { MAX_RESULT_DEPTH } from '../src/executors/sandbox-protocol.ts';
import { duplicateKeys, flowOf, sqliteRunnerHarness } from '../src/inprocess/test-support.ts';

const { store, runner } = sqliteRunnerHarness();

/** A code step's source returning arrays nested `depth` levels deep (`[]` is one level). */
const nested = (depth: number) => `let a = []; for (let i = 1; i < ${depth}; i++) a = [a]; return a;`;

/** What `runs.get` answers, read back the way it reads it: the row, and the state its events fold to. */
async function readBack(runId: string) {
  const row = await store.getRun(runId);
  const events = await store.readEvents(runId);
  expect(duplicateKeys(events)).toEqual([]);
  const state = runState(events);
  // The API sends both as JSON: that must hold too.
  expect(() => JSON.stringify({ row, state })).not.toThrow();
  return { row, events, state };
}

describe('a code step returning a deeply nested value', () => {
  it('fails its run with an error naming the step and the depth limit, and the run reads back', async () => {
    const flow = flowOf('deep', [
      { id: 'nest', type: 'code', source: nested(5000) },
      { id: 'after', type: 'transform', value: 1 },
    ]);
    const outcome = await runner().start(flow, {});
    expect(outcome.status).toBe('failed');
    const { row, events, state } = await readBack(outcome.runId);
    const message = `code step returned a value nested 5000 levels deep; a result may nest at most ${MAX_RESULT_DEPTH} levels`;
    expect(row?.status).toBe('failed');
    expect(row?.error).toMatchObject({ stepId: 'nest', message: expect.stringContaining(message) });
    expect(events.filter((event) => event.type === 'step.failed')).toMatchObject([
      { stepId: 'nest', error: { message: expect.stringContaining(message) } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run.failed' });
    expect(state.status).toBe('failed');
    expect(state.steps.nest?.status).toBe('failed');
    expect(state.steps.after).toBeUndefined();
  });

  it('passes a result at the limit on to the next code step and the run output', async () => {
    const flow = flowOf(
      'at-limit',
      [
        { id: 'nest', type: 'code', source: nested(MAX_RESULT_DEPTH) },
        {
          id: 'measure',
          type: 'code',
          source: 'let depth = 0; for (let a = steps.nest.output; Array.isArray(a); a = a[0]) depth++; return depth;',
        },
      ],
      { output: { nested: '=steps.nest.output', depth: '=steps.measure.output' } },
    );
    const outcome = await runner().start(flow, {});
    expect(outcome.status).toBe('completed');
    const { row, state } = await readBack(outcome.runId);
    expect(row?.status).toBe('completed');
    expect(row?.output).toMatchObject({ depth: MAX_RESULT_DEPTH });
    expect(state.steps.measure?.output).toBe(MAX_RESULT_DEPTH);
  });
});
