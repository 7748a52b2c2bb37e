/**
 * The generic Inngest function in process, with @inngest/test's engine standing in for the
 * Inngest server (no dev server: fast). Real store, real executors; only the waits are mocked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InngestTestEngine, mockCtx } from '@inngest/test';
import type { Flow, Json } from '@weft/engine';
import { Inngest } from 'inngest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryFlowSource } from '../backends/flow-source.ts';
import { createExecutorRegistry, type HostTool } from '../executors/index.ts';
import { openSqliteStore } from '../store/index.ts';
import type { RunStore } from '../store/types.ts';
import { createWeftFunction } from './function.ts';
import { DECISION_EVENT, RUN_EVENT } from './types.ts';

let dir: string;
let store: RunStore;
const calls: Json[] = [];
const effect: HostTool = {
  description: 'records its arguments',
  parameters: { type: 'object', properties: { n: { type: 'number' } } },
  execute: (args) => {
    calls.push(args);
    if ((args as { n?: number }).n === 13) throw new Error('unlucky');
    return { ok: true };
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-inngest-fn-'));
  store = await openSqliteStore(join(dir, 'weft.db'));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function engine() {
  const fn = createWeftFunction(new Inngest({ id: 'weft-test', isDev: true }), {
    store,
    flows: memoryFlowSource([]),
    executors: createExecutorRegistry({ tools: { effect } }),
    tools: { effect },
  });
  // The test engine gives every re-execution a new run id; Inngest keeps one per run, and the
  // function claims the Weft run for it.
  const inngestRunId = `01TEST${crypto.randomUUID()}`;
  return new InngestTestEngine({ function: fn, transformCtx: (raw) => ({ ...mockCtx(raw), runId: inngestRunId }) });
}

async function recorded(id: string, steps: unknown[]): Promise<{ runId: string; flow: Flow }> {
  const flow = { irVersion: 1, id, name: id, steps, output: '=steps' } as unknown as Flow;
  const runId = `run_${crypto.randomUUID()}`;
  await store.createRun({
    id: runId,
    flowId: id,
    flowVersion: 1,
    flow: flow as never,
    input: {},
    backend: 'inngest',
    status: 'running',
  });
  return { runId, flow };
}

const runEvent = (runId: string, flowId: string) => [{ name: RUN_EVENT, data: { runId, flowId, flowVersion: 1 } }];

describe('the Weft function under @inngest/test', () => {
  it('runs calls as steps, records the approval request, then waits for the decision event of this run and step', async () => {
    const { runId } = await recorded('gated', [
      { id: 'first', type: 'tool', tool: 'effect', args: { n: 1 } },
      { id: 'gate', type: 'approval', prompt: 'Go?', timeout: '2h' },
      { id: 'after', type: 'transform', value: '=steps.gate.output.approved' },
    ]);
    // Up to the wait: the request is recorded, and the wait matches this run and step only (the
    // rest of an approval's life runs on the real dev server: conformance/inngest.test.ts).
    const t = engine();
    const waiting = await t.executeStep('gate#wait', { events: runEvent(runId, 'gated') as never });
    expect(waiting.ctx.step.run).toHaveBeenCalledWith('first', expect.any(Function));
    expect(waiting.ctx.step.waitForEvent).toHaveBeenCalledWith('gate#wait', {
      event: DECISION_EVENT,
      timeout: 2 * 3_600_000,
      if: `async.data.runId == ${JSON.stringify(runId)} && async.data.stepId == "gate"`,
    });
    expect(await store.getApproval(runId, 'gate')).toMatchObject({ status: 'pending', prompt: 'Go?' });
    expect((await store.getRun(runId))?.status).toBe('waiting');
  });

  it('a call that fails for good fails the run with its own message, once, and Inngest does not retry it', async () => {
    const { runId } = await recorded('unlucky', [{ id: 'boom', type: 'tool', tool: 'effect', args: { n: 13 } }]);
    calls.length = 0;
    const { error } = await engine().execute({ events: runEvent(runId, 'unlucky') as never });
    expect(String((error as Error | undefined)?.message)).toContain('unlucky');
    expect(calls).toEqual([{ n: 13 }]);
    expect(await store.getRun(runId)).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('unlucky') },
    });
  });

  it('a sleep journals when it ends, then sleeps until then', async () => {
    const { runId } = await recorded('nap', [{ id: 'nap', type: 'sleep', duration: '5m' }]);
    const before = Date.now();
    const { ctx } = await engine().executeStep('nap', { events: runEvent(runId, 'nap') as never });
    const [id, until] = (ctx.step.sleepUntil as unknown as { mock: { calls: [string, string][] } }).mock.calls[0]!;
    expect(id).toBe('nap');
    expect(Date.parse(until) - before).toBeGreaterThanOrEqual(5 * 60_000);
    expect(Date.parse(until) - before).toBeLessThan(5 * 60_000 + 60_000);
  });
});
