/**
 * Replay: recorded Temporal histories (histories/*.json) replay against the current workflow
 * bundle with Worker.runReplayHistory without a determinism error. Four flows: the crash flow
 * with its agent loop, parallel and spawn; the approval flow with its signal; a sleep + map flow;
 * a fan-out whose branches differ (tool, code, two tools, a sleep then a tool), so calls carry,
 * join a write and wait for one. Each is kept as recorded by every way the workflow has run:
 * how it wrote events (WeftFlowArgs.writes) and the interpreter's promise turns
 * (WeftFlowArgs.turns). A run started by an older worker must still replay as it ran.
 * A deliberately changed flow does produce a determinism error: the recorded run's pinned IR
 * (the flow in the workflow's start input) is edited to drop a step, so the interpreter issues
 * commands the history does not have.
 *
 * The golden files are committed. `UPDATE_HISTORIES=1` records those of the mode runs start
 * with now (CURRENT) again on a dev server, and a missing one is recorded the same way; older
 * modes' files are never rewritten — no code starts runs that way any more. Without either no
 * server is started: replay needs only the bundle.
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
import { CARRIED_WRITES, LEAN_TURNS, type WeftFlowArgs } from '../../src/temporal/types.ts';
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

/**
 * A branch of each kind of wait: a call that carries, calls that join a write, a call after a
 * timer. Branches c and e (a tool, a code step first) finished their first calls in one workflow
 * task when recorded and scheduled their second in an order set by the promise turns each kind of
 * step takes (e2 first, carrying; then a write; then c2). Replay alone does not notice those two
 * swapped — both are executeCall activities, matched by sequence number and type, and the swap
 * only moves the write — so the engine's interpreter/turns.test.ts pins the turns themselves.
 */
const fanFlow = {
  irVersion: 1,
  id: 'fan',
  name: 'Mixed fan-out',
  version: 1,
  steps: [
    {
      id: 'fan',
      type: 'parallel',
      branches: {
        a: [{ id: 'a1', type: 'tool', tool: 'mark', args: { id: 'a1' } }],
        b: [{ id: 'b1', type: 'code', source: 'return 2' }],
        c: [
          { id: 'c1', type: 'tool', tool: 'mark', args: { id: 'c1' } },
          { id: 'c2', type: 'tool', tool: 'mark', args: { id: 'c2' } },
        ],
        d: [
          { id: 'nap', type: 'sleep', duration: '1s' },
          { id: 'd1', type: 'tool', tool: 'mark', args: { id: 'd1' } },
        ],
        e: [
          { id: 'e1', type: 'code', source: 'return 3' },
          { id: 'e2', type: 'tool', tool: 'mark', args: { id: 'e2' } },
        ],
      },
    },
    { id: 'after', type: 'tool', tool: 'mark', args: { id: 'after' } },
  ],
} as unknown as Flow;

const NAMES = ['crash', 'approval', 'sleep-map', 'fan'] as const;
type Name = (typeof NAMES)[number];

/**
 * How the recording worker ran: `legacy` writes are a start without `writes` (before calls
 * carried events), `legacy` turns a start without `turns` (before tool calls lost their async
 * wrappers).
 */
interface Mode {
  writes: 'legacy' | NonNullable<WeftFlowArgs['writes']>;
  turns: 'legacy' | NonNullable<WeftFlowArgs['turns']>;
}
/** What startTemporalRun sets now: the only mode this test can record. */
const CURRENT: Mode = { writes: CARRIED_WRITES, turns: LEAN_TURNS };

interface Golden extends Mode {
  name: Name;
}

const GOLDEN: readonly Golden[] = [
  ...(['crash', 'approval', 'sleep-map'] as const).map((name): Golden => ({ name, writes: 'legacy', turns: 'legacy' })),
  ...NAMES.map((name): Golden => ({ name, writes: CARRIED_WRITES, turns: 'legacy' })),
  ...NAMES.map((name): Golden => ({ name, ...CURRENT })),
];

const isCurrent = (golden: Golden) => golden.writes === CURRENT.writes && golden.turns === CURRENT.turns;
/** The files kept the names they were recorded under: a mode's parts that are not legacy, in order. */
const fileOf = (golden: Golden) =>
  join(HISTORIES, `${[golden.name, golden.writes, golden.turns].filter((part) => part !== 'legacy').join('.')}.json`);
const label = ({ name, writes, turns }: Golden) => `${name} (writes ${writes}, turns ${turns})`;

/** Runs the `names` flows to completion on a fresh dev server and writes their histories (CURRENT). */
async function recordHistories(names: readonly Name[]): Promise<void> {
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
      fan: async () => {
        await startRecordedRun(store, {
          client,
          taskQueue,
          runId: 'fan',
          flow: fanFlow,
          input: {},
          hostTools: { mark: markSpec },
        });
      },
    };
    mkdirSync(HISTORIES, { recursive: true });
    for (const name of names) {
      await runs[name]();
      await awaitTemporalRun(client, name);
      const run = await store.getRun(name);
      if (run?.status !== 'completed') throw new Error(`${name} ended ${run?.status}: ${JSON.stringify(run?.error)}`);
      const history = await client.workflow.getHandle(name).fetchHistory();
      const file = fileOf({ name, ...CURRENT });
      writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`);
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

const load = (golden: Golden): JsonHistory => JSON.parse(readFileSync(fileOf(golden), 'utf8')) as JsonHistory;

/** The start input's payload: the workflow's one argument, WeftFlowArgs, as a json/plain payload. */
function startPayload(history: JsonHistory): { data: string } {
  const payload = history.events[0]?.workflowExecutionStartedEventAttributes?.input.payloads[0];
  if (!payload) throw new Error('no start input in the history');
  return payload;
}

const startArgs = (history: JsonHistory) =>
  JSON.parse(Buffer.from(startPayload(history).data, 'base64').toString('utf8')) as WeftFlowArgs;

/** The history with the flow its run was started with (the pinned IR) edited by `change`. */
function withChangedFlow(history: JsonHistory, change: (flow: { steps: Json[] }) => void): JsonHistory {
  const copy = structuredClone(history);
  const args = startArgs(copy) as unknown as { flow: { steps: Json[] } };
  change(args.flow);
  startPayload(copy).data = Buffer.from(JSON.stringify(args)).toString('base64');
  return copy;
}

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const stale = GOLDEN.filter((golden) => isCurrent(golden) && (UPDATE || !existsSync(fileOf(golden)))).map(
    (golden) => golden.name,
  );
  if (stale.length > 0) await recordHistories(stale);
  await weftWorkflowBundle();
}, 15 * 60_000);

describe('temporal: replaying recorded histories', () => {
  it.each(GOLDEN.map((golden) => [label(golden), golden] as const))(
    '%s replays without a determinism error',
    async (_label, golden) => {
      const history = load(golden);
      // The file is what it says: a run started in that mode.
      const args = startArgs(history);
      expect({ writes: args.writes ?? 'legacy', turns: args.turns ?? 'legacy' }).toEqual({
        writes: golden.writes,
        turns: golden.turns,
      });
      await expect(
        Worker.runReplayHistory({ workflowBundle: await weftWorkflowBundle() }, history, golden.name),
      ).resolves.toBeUndefined();
    },
  );

  it('a changed flow (a step removed from the pinned IR) is a determinism violation', async () => {
    const history = withChangedFlow(load({ name: 'crash', ...CURRENT }), (flow) => {
      flow.steps = flow.steps.filter((step) => (step as { id: string }).id !== 'm1');
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle: await weftWorkflowBundle() }, history, 'crash'),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });

  it('so is a sleep taken out of the sleep + map flow', async () => {
    const history = withChangedFlow(load({ name: 'sleep-map', ...CURRENT }), (flow) => {
      flow.steps = flow.steps.filter((step) => (step as { id: string }).id !== 'nap');
    });
    await expect(
      Worker.runReplayHistory({ workflowBundle: await weftWorkflowBundle() }, history, 'sleep-map'),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
