/**
 * Replay: the recorded Temporal histories of three flows (histories/*.json: the crash flow with
 * its agent loop, parallel and spawn; the approval flow with its signal; a sleep + map flow)
 * replay against the current workflow bundle with Worker.runReplayHistory without a determinism
 * error. A deliberately changed flow does produce one: the recorded run's pinned IR (the flow in
 * the workflow's start input) is edited to drop a step, so the interpreter issues commands the
 * history does not have.
 *
 * The golden files are committed; `UPDATE_HISTORIES=1` records them again on a dev server.
 * Without it no server is started: replay needs only the bundle.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { Flow, Json, ToolSpec } from '@weft/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { memoryFlowSource } from '../../src/backends/flow-source.ts';
import { createExecutorRegistry, type HostTool } from '../../src/executors/index.ts';
import { openSqliteStore } from '../../src/store/index.ts';
import { approveTemporalRun, awaitTemporalRun, connectTemporal } from '../../src/temporal/client.ts';
import { startTemporalDevServer } from '../../src/temporal/dev-server.ts';
import { startTemporalWorker, weftWorkflowBundle } from '../../src/temporal/worker.ts';
import { approvalFlow, crashChild, crashFixtures, crashFlow } from '../fixtures/flows.ts';
import { startRecordedRun } from './support.ts';

const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url));
const UPDATE = process.env.UPDATE_HISTORIES === '1';

const sleepMapFlow = {
  irVersion: 1,
  id: 'sleep-map',
  name: 'Sleep and map',
  version: 1,
  steps: [
    { id: 'nap', type: 'sleep', duration: '1s' },
    {
      id: 'squares',
      type: 'map',
      items: '=input.xs',
      concurrency: 2,
      steps: [{ id: 'sq', type: 'code', source: 'return args.x * args.x', args: { x: '=item' } }],
    },
    { id: 'total', type: 'code', source: 'return args.s.length', args: { s: '=steps.squares.output' } },
  ],
  output: { squares: '=steps.squares.output', total: '=steps.total.output' },
} as unknown as Flow;

const markSpec: Omit<ToolSpec, 'name'> = {
  description: 'records its id',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
};

/**
 * The SDK's own proto3-JSON writer (the format the Temporal CLI and UI download and
 * runReplayHistory reads), from @temporalio/common as the worker package resolves it.
 */
const { historyToJSON } = createRequire(import.meta.resolve('@temporalio/worker'))(
  '@temporalio/common/lib/proto-utils',
) as { historyToJSON(history: unknown): string };

const NAMES = ['crash', 'approval', 'sleep-map'] as const;
type Name = (typeof NAMES)[number];
const fileOf = (name: Name) => join(HISTORIES, `${name}.json`);

/** Runs the three flows to completion on a fresh dev server and writes their histories. */
async function recordHistories(): Promise<void> {
  const server = await startTemporalDevServer();
  const dir = mkdtempSync(join(tmpdir(), 'weft-temporal-replay-'));
  const store = await openSqliteStore(join(dir, 'weft.db'));
  const mark: HostTool = { ...markSpec, execute: (args) => ({ marked: (args as { id: string }).id }) };
  const taskQueue = 'weft-replay';
  const worker = await startTemporalWorker({
    address: server.address,
    taskQueue,
    store,
    flows: memoryFlowSource([crashChild]),
    executors: createExecutorRegistry({ tools: { mark } }),
  });
  const client = await connectTemporal({ address: server.address });
  try {
    const runs: Record<Name, () => Promise<void>> = {
      crash: async () => {
        await startRecordedRun(store, {
          client,
          taskQueue,
          runId: 'crash',
          flow: crashFlow,
          input: { n: 4 },
          fixtures: crashFixtures,
          hostTools: { mark: markSpec },
        });
      },
      approval: async () => {
        await startRecordedRun(store, {
          client,
          taskQueue,
          runId: 'approval',
          flow: approvalFlow,
          input: { amount: 7 },
        });
        const deadline = Date.now() + 30_000;
        while (!(await store.readEvents('approval')).some((e) => e.type === 'approval.requested')) {
          if (Date.now() > deadline) throw new Error('the approval was never requested');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await approveTemporalRun(client, 'approval', { stepId: 'review', approved: true, by: 'bea' });
      },
      'sleep-map': async () => {
        await startRecordedRun(store, {
          client,
          taskQueue,
          runId: 'sleep-map',
          flow: sleepMapFlow,
          input: { xs: [1, 2, 3] },
        });
      },
    };
    mkdirSync(HISTORIES, { recursive: true });
    for (const name of NAMES) {
      await runs[name]();
      await awaitTemporalRun(client, name);
      const run = await store.getRun(name);
      if (run?.status !== 'completed') throw new Error(`${name} ended ${run?.status}: ${JSON.stringify(run?.error)}`);
      const history = await client.workflow.getHandle(name).fetchHistory();
      writeFileSync(fileOf(name), `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`);
    }
  } finally {
    await worker.shutdown();
    await client.connection.close();
    await store.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface JsonHistory {
  events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[];
}

const load = (name: Name): JsonHistory => JSON.parse(readFileSync(fileOf(name), 'utf8')) as JsonHistory;

/** The history with the flow its run was started with (the pinned IR) edited by `change`. */
function withChangedFlow(history: JsonHistory, change: (flow: { steps: Json[] }) => void): JsonHistory {
  const copy = structuredClone(history);
  const payload = copy.events[0]?.workflowExecutionStartedEventAttributes?.input.payloads[0];
  if (!payload) throw new Error('no start input in the history');
  // The workflow's one argument, WeftFlowArgs, as a json/plain payload.
  const args = JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8')) as { flow: { steps: Json[] } };
  change(args.flow);
  payload.data = Buffer.from(JSON.stringify(args)).toString('base64');
  return copy;
}

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  if (UPDATE || NAMES.some((name) => !existsSync(fileOf(name)))) await recordHistories();
  await weftWorkflowBundle();
}, 15 * 60_000);

describe('temporal: replaying recorded histories', () => {
  it.each(NAMES)('%s replays without a determinism error', async (name) => {
    await expect(
      Worker.runReplayHistory({ workflowBundle: await weftWorkflowBundle() }, load(name), name),
    ).resolves.toBeUndefined();
  });

  it('a changed flow (a step removed from the pinned IR) is a determinism violation', async () => {
    const history = withChangedFlow(load('crash'), (flow) => {
      flow.steps = flow.steps.filter((step) => (step as { id: string }).id !== 'm1');
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle: await weftWorkflowBundle() }, history, 'crash'),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });

  it('so is a sleep taken out of the sleep + map flow', async () => {
    const history = withChangedFlow(load('sleep-map'), (flow) => {
      flow.steps = flow.steps.filter((step) => (step as { id: string }).id !== 'nap');
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle: await weftWorkflowBundle() }, history, 'sleep-map'),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
