/**
 * The one generic Temporal workflow: it runs the engine's interpreter over a StepHost made of
 * Temporal primitives. Every checkpointed call is an activity (retries and timeout from the
 * step), an approval is a signal plus `condition` with the step's timeout, `sleep` a durable
 * timer, `spawn` a child workflow. Events are buffered and written to the run store before
 * anything that waits, so the log reads like the in-process runner's; the store dedupes them by
 * `eventKey`, which makes a replayed workflow's re-emits harmless.
 *
 * Weft's own bookkeeping adds no server round trip and, on a run of sequential calls, no
 * workflow-task round trip either: a call's activity writes the events before it (EventWriter),
 * other writes are local activities joined while one is queued, and the run's end is written by
 * a local activity in the workflow task that completes the workflow. Only the flow's own calls
 * are activities, as in a hand-written workflow. Local activities are at-least-once like
 * activities; every write is idempotent (events deduped by eventKey, the run's end rewritten
 * with itself).
 *
 * Workflow code: no Node API, no clock but the workflow's, nothing from the executors.
 */

import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  defineSignal,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import {
  type ApprovalOutcome,
  type ErrorInfo,
  type FlowRef,
  formatFlowRef,
  hashCall,
  interpret,
  type Json,
  NonRetryableError,
  type RunEventInput,
  type StepHost,
  toErrorInfo,
} from '@weft/engine';
import { childFixtures, childRunId, MAX_SPAWN_DEPTH, SPAWN_DEPTH_EXCEEDED } from '../backends/children.ts';
import type { RunEnd } from '../backends/run-rows.ts';
import {
  childSeed,
  seedAnswer,
  seedDecision,
  seededEvent,
  seedSleepUntil,
  seedValue,
  spawnEntry,
  spawnHash,
} from '../backends/seed.ts';
import { EventWriter } from './event-writer.ts';
import {
  APPROVE_SIGNAL,
  type ApproveSignal,
  CARRIED_WRITES,
  LEAN_TURNS,
  type WeftActivities,
  type WeftFlowArgs,
} from './types.ts';

/** The patch that added journaling child results (for replays and test cases). */
const JOURNAL_CHILD_RESULTS = 'weft-journal-child-results';

export const approveSignal = defineSignal<[ApproveSignal]>(APPROVE_SIGNAL);

/** Default per-attempt limit of a call whose step sets no timeout. */
const DEFAULT_CALL_TIMEOUT_MS = 10 * 60_000;
/** Temporal's own limit sits above the step's: the activity enforces the step's, with the in-process message. */
const TIMEOUT_BACKSTOP_MS = 5_000;
/**
 * A call's activity heartbeats (activities.ts); a worker killed mid-call stops doing so, and
 * the attempt is retried on another worker after this long instead of after startToClose.
 */
const HEARTBEAT_TIMEOUT_MS = 10_000;
/**
 * Attempts Temporal may spend beyond the step's own: an attempt lost with its worker (heartbeat
 * or startToClose timeout) is not the step failing, and a tool step (1 attempt) must survive it.
 * The activity itself makes a failure final once `attempt` reaches the step's maxAttempts.
 */
const LOST_WORKER_ATTEMPTS = 3;

const local = proxyLocalActivities<Pick<WeftActivities, 'reportEvents' | 'journal' | 'finishRun'>>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '100ms', maximumInterval: '5s' },
});
const bookkeeping = proxyActivities<Pick<WeftActivities, 'prepareChild' | 'finishRun'>>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '200ms', maximumInterval: '10s' },
});

export async function weftFlow(args: WeftFlowArgs): Promise<Json> {
  const { runId, flow } = args;
  const decisions = new Map<string, ApproveSignal>();
  setHandler(approveSignal, (decision) => {
    if (!decisions.has(decision.stepId)) decisions.set(decision.stepId, decision);
  });

  // A run started before calls carried events replays with the writes it was recorded with.
  const legacy = args.writes !== CARRIED_WRITES;
  /** Checkpoints answered from the seed: their end events say `reused`. */
  const reused = new Set<string>();
  const events = new EventWriter((batch) => local.reportEvents(runId, batch), { legacy });
  const flush = () => events.flush();
  /** Writes what is still unwritten, the run's end event and its final status. */
  const finish = async (end: RunEnd, event: RunEventInput): Promise<void> => {
    if (legacy) {
      await flush();
      await bookkeeping.finishRun(runId, end, [event]);
      return;
    }
    await local.finishRun(runId, end, [...(await events.rest()), event]);
  };

  const seeded = new Map((args.seed ?? []).map((entry) => [entry.stepId, entry]));

  const host: StepHost = {
    emit(event) {
      const seededOrAsIs = seededEvent(event, seeded, reused);
      if (seededOrAsIs) events.push(seededOrAsIs);
    },
    // Promise chains, not async/await, on this hot path: the sandbox records a stack trace for
    // every promise, and that is most of a call's cost in the workflow.
    run(id, call, policy) {
      const seed = seedAnswer(seeded, id, () => hashCall(call));
      if (seed) {
        // Answered from the seed: no activity, nothing executed or paid for again.
        reused.add(id);
        return new Promise<Json>((resolve) => resolve(seedValue(seed, rehydrate)));
      }
      const timeoutMs = policy.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
      const { executeCall } = proxyActivities<Pick<WeftActivities, 'executeCall'>>({
        startToCloseTimeout: timeoutMs + TIMEOUT_BACKSTOP_MS,
        heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
        retry: {
          maximumAttempts: Math.max(1, policy.retry.maxAttempts) + LOST_WORKER_ATTEMPTS,
          initialInterval: Math.max(1, policy.retry.initialDelayMs),
          backoffCoefficient: policy.retry.backoff === 'exponential' ? 2 : 1,
          maximumInterval: Math.max(1, policy.retry.maxDelayMs, policy.retry.initialDelayMs),
        },
      });
      // step.started is stored before the activity can store its retries and deltas: the
      // activity writes it first, or a local activity before the activity is scheduled.
      return events
        .call((unwritten) =>
          unwritten ? executeCall(runId, id, call, policy, unwritten) : executeCall(runId, id, call, policy),
        )
        .catch((error: unknown) => {
          throw stepError(error);
        });
    },
    async waitForApproval(id, request): Promise<ApprovalOutcome> {
      const given = seedDecision(seeded, id);
      if (given) {
        reused.add(id);
        return given;
      }
      // approval.requested must be visible before anyone can decide.
      await flush();
      const decided = () => decisions.has(id);
      if (request.timeoutMs === undefined) await condition(decided);
      else await condition(decided, request.timeoutMs);
      const at = new Date().toISOString();
      const decision = decisions.get(id);
      if (!decision) return { kind: 'timed-out', at };
      return {
        kind: 'decided',
        approved: decision.approved,
        by: decision.by ?? null,
        comment: decision.comment ?? null,
        at,
      };
    },
    async sleep(id, ms) {
      // Slept in-process before a hand-off: only what is left of it (none, for a finished one).
      // The seed is part of the start input, so a replay of this history decides the same.
      const seededUntil = seedSleepUntil(seeded, id, ms);
      if (seededUntil !== undefined) reused.add(id);
      await flush();
      const until = seededUntil ?? new Date(Date.now() + ms).toISOString();
      const left = Date.parse(until) - Date.now();
      if (left > 0) await sleep(left);
      return { until };
    },
    async spawn(id, ref: FlowRef, input: Json) {
      const seed = seedAnswer(seeded, id, () => spawnHash(ref, input));
      if (seed) {
        reused.add(id);
        return seedValue(seed, rehydrate);
      }
      await flush();
      if ((args.depth ?? 0) >= MAX_SPAWN_DEPTH)
        throw rehydrate(
          SPAWN_DEPTH_EXCEEDED.status === 'failed'
            ? SPAWN_DEPTH_EXCEEDED.error
            : { name: 'Error', message: 'spawn depth exceeded' },
        );
      const childId = childRunId(runId, id);
      const fixtures = childFixtures(args.fixtures ?? null, id);
      const ownSeed = childSeed(seeded, id);
      const plan = await bookkeeping.prepareChild({
        parentRunId: runId,
        childRunId: childId,
        stepId: id,
        ref,
        input,
        fixtures,
        ...(ownSeed.length > 0 ? { seed: ownSeed } : {}),
      });
      if (!plan.flow)
        throw rehydrate(plan.error ?? { name: 'Error', message: `cannot start flow '${formatFlowRef(ref)}'` });
      host.emit({ type: 'child.started', stepId: id, childRunId: childId, flowId: formatFlowRef(ref) });
      await flush();
      const childArgs: WeftFlowArgs = {
        runId: childId,
        flow: plan.flow,
        input,
        depth: (args.depth ?? 0) + 1,
        parentRunId: runId,
        ...(fixtures ? { fixtures } : {}),
        ...(args.hostTools ? { hostTools: args.hostTools } : {}),
        ...(ownSeed.length > 0 ? { seed: ownSeed } : {}),
        ...(legacy ? {} : { writes: CARRIED_WRITES }),
        // The child's own start input sets how its history replays: a new child takes the turns of now.
        turns: LEAN_TURNS,
      };
      // Journaling a child's result is a command that histories recorded before it lack: a
      // workflow started by an older worker replays without it (Temporal's patching).
      const journalChild = (result: Parameters<typeof spawnEntry>[3]) =>
        patched(JOURNAL_CHILD_RESULTS) ? local.journal(runId, [spawnEntry(id, ref, input, result)]) : undefined;
      let output: Json;
      try {
        output = await executeChild(weftFlow, { workflowId: childId, args: [childArgs] });
      } catch (error) {
        const failure = stepError(error);
        if (!isCancellation(error)) await journalChild({ ok: false, error: toErrorInfo(failure) });
        throw failure;
      }
      await journalChild({ ok: true, value: output });
      return output;
    },
  };

  host.emit({
    type: 'run.started',
    flowId: flow.id,
    flowVersion: flow.version ?? 1,
    input: args.input,
    backend: 'temporal',
    ...(args.parentRunId ? { parentRunId: args.parentRunId } : {}),
  });
  let output: Json;
  try {
    output = await interpret(flow, args.input, host, {
      ...(args.fixtures ? { fixtures: args.fixtures } : {}),
      ...(args.hostTools ? { hostTools: args.hostTools } : {}),
      ...(args.turns === LEAN_TURNS ? {} : { legacyTurns: true }),
    });
  } catch (error) {
    // A cancelled wait may reach here wrapped as the step's failure: the scope still knows.
    const cancelled = isCancellation(error) || CancellationScope.current().consideredCancelled;
    const info: ErrorInfo = cancelled ? { name: 'Cancelled', message: 'the run was cancelled' } : toErrorInfo(error);
    await CancellationScope.nonCancellable(() =>
      cancelled
        ? finish({ status: 'cancelled', error: info }, { type: 'run.cancelled', reason: 'cancelled' })
        : finish({ status: 'failed', error: info }, { type: 'run.failed', error: info }),
    );
    if (cancelled) throw error;
    throw ApplicationFailure.nonRetryable(info.message, info.name ?? 'Error', info);
  }
  await finish({ status: 'completed', output }, { type: 'run.completed', output });
  return output;
}

/** An activity's or child's failure as the interpreter sees it: final, with the original name and message. */
function stepError(error: unknown): unknown {
  if (error instanceof ActivityFailure || error instanceof ChildWorkflowFailure) {
    const cause = error.cause;
    if (cause instanceof ApplicationFailure) {
      const details = cause.details?.[0] as ErrorInfo | undefined;
      return rehydrate(
        details && typeof details.message === 'string'
          ? details
          : { name: cause.type ?? 'Error', message: cause.message },
      );
    }
    if (cause) return rehydrate({ name: cause.name, message: cause.message });
  }
  return error;
}

function rehydrate(info: ErrorInfo): Error {
  const error = new NonRetryableError(info.message);
  if (info.name) error.name = info.name;
  return error;
}
