/**
 * A replay's plan read from the store: the source run's journal and events, the flow version it
 * runs on, and what the reused model turns cost. A checkpoint inside a child run is replayed as
 * part of the child's root run: each parent runs again from the step that spawned the child (what
 * it did before is reused), and the child's own checkpoints before the point reach the new child
 * through the parent's seed, under `<spawn step>><checkpoint>` (backends/seed.ts `childSeed`).
 */
import { type Flow, runState } from '@weft/engine';
import type { FlowSource } from '../backends/flow-source.ts';
import { CHILD_SEPARATOR } from '../backends/seed.ts';
import { UnknownRunError } from '../inprocess/errors.ts';
import type { RunRecord, RunStore } from '../store/types.ts';
import { UnknownFlowVersionError } from './errors.ts';
import { type Cost, costOf, type TurnUsage, turnsOf } from './pricing.ts';
import { planReplay, type ReplayOptions, type ReplayPlan } from './replay-plan.ts';

export interface ReplaySource {
  /** The run the replay is a new run of: the source, or the root of the source's run tree. */
  root: RunRecord;
  /** The point as seen from the root (`each[1]/summarize>count` for a child's `count`). */
  checkpoint: string;
  plan: ReplayPlan;
  /** The flow the replay runs: the root's pinned snapshot, or the current version. */
  flow: Flow;
  costSaved: Cost;
}

export async function readReplaySource(
  store: RunStore,
  flows: FlowSource,
  source: RunRecord,
  options: Omit<ReplayOptions, 'versions'> & { version?: 'original' | 'current' | undefined },
): Promise<ReplaySource> {
  const original = source.flow as unknown as Flow;
  let flow = original;
  if (options.version === 'current') {
    if (source.parentRunId)
      throw new UnknownFlowVersionError(
        source.flowId,
        'a checkpoint inside a child run replays on the versions the runs ran; leave out version',
      );
    const current = await flows.getFlow({ id: source.flowId });
    if (!current) throw new UnknownFlowVersionError(source.flowId);
    flow = current;
  }
  const level = async (run: RunRecord, levelOptions: ReplayOptions) => {
    const events = await store.readEvents(run.id);
    const plan = planReplay(await store.loadJournal(run.id), events, levelOptions);
    return { plan, turns: turnsOf(runState(events), new Set(plan.reused)) };
  };
  let { plan, turns } = await level(source, {
    ...options,
    versions: flow === original ? undefined : { source: original, target: flow },
  });
  const saved: TurnUsage[] = [...turns];
  let root = source;
  let checkpoint = options.from;
  while (root.parentRunId && root.parentStepId) {
    const spawnStep = root.parentStepId;
    const parent = await store.getRun(root.parentRunId);
    if (!parent) throw new UnknownRunError(root.parentRunId);
    const outer = await level(parent, { from: spawnStep, live: options.live, approvals: options.approvals });
    plan = nestPlan(outer.plan, spawnStep, plan);
    saved.push(...outer.turns);
    checkpoint = `${spawnStep}${CHILD_SEPARATOR}${checkpoint}`;
    root = parent;
  }
  return {
    root,
    checkpoint,
    plan,
    flow: root === source ? flow : (root.flow as unknown as Flow),
    costSaved: await costOf(saved),
  };
}

/** The parent's plan from the spawn step, with the child's plan inside it under the step's id. */
function nestPlan(outer: ReplayPlan, spawnStep: string, inner: ReplayPlan): ReplayPlan {
  const nest = (id: string) => `${spawnStep}${CHILD_SEPARATOR}${id}`;
  return {
    seed: [...outer.seed, ...inner.seed.map((entry) => ({ ...entry, stepId: nest(entry.stepId) }))],
    reused: [...outer.reused, ...inner.reused.map(nest)],
    pinned: [...outer.pinned, ...inner.pinned.map(nest)],
    approvals: [...outer.approvals, ...inner.approvals.map((item) => ({ ...item, stepId: nest(item.stepId) }))],
    notReused: [...outer.notReused, ...inner.notReused.map((item) => ({ ...item, checkpoint: nest(item.checkpoint) }))],
    rerun: [...outer.rerun, ...inner.rerun.map(nest)],
    // The spawn itself starts the child again, whose side effects are named one by one.
    sideEffects: [
      ...outer.sideEffects.filter((effect) => effect.stepId !== spawnStep),
      ...inner.sideEffects.map((effect) => ({ ...effect, stepId: nest(effect.stepId) })),
    ],
    tokensSaved: {
      input: outer.tokensSaved.input + inner.tokensSaved.input,
      output: outer.tokensSaved.output + inner.tokensSaved.output,
    },
  };
}
