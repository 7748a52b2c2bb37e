/**
 * The StepHost over Inngest's step tools. Inngest memoizes each step by id and re-runs the
 * handler from the top, so everything non-deterministic happens inside a step: calls
 * (`step.run`, which returns a final failure as data so the error comes back exactly), the
 * time a sleep ends, a decision made before the wait began. Approvals are
 * `step.waitForEvent` on the decision event for this run and step; spawn is `step.invoke` of
 * the same function.
 */

import {
  type ApprovalOutcome,
  type ErrorInfo,
  type Fixtures,
  type FlowRef,
  formatFlowRef,
  hashCall,
  type Json,
  NonRetryableError,
  type StepHost,
} from '@weft/engine';
import type { Inngest, InngestFunction } from 'inngest';
import { RetryAfterError } from 'inngest';
import { attemptCall, deltaEmitter, journalCall } from '../backends/attempt.ts';
import { childFixtures, childRunId, MAX_SPAWN_DEPTH, SPAWN_DEPTH_EXCEEDED } from '../backends/children.ts';
import type { FlowSource } from '../backends/flow-source.ts';
import { prepareChildRun } from '../backends/run-rows.ts';
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
import type { ExecutorRegistry } from '../executors/index.ts';
import { reportRunEvents } from '../store/report-events.ts';
import type { JournalEntry, RunStore } from '../store/types.ts';
import type { RunReporter } from './reporter.ts';
import { type CallFailed, DECISION_EVENT, type DecisionEventData, type RunEventData } from './types.ts';

/** Inngest waits at most this long at once; an approval without a timeout waits again. */
const LONGEST_WAIT_MS = 365 * 24 * 3_600_000;
/** Never aborted: Inngest cancels a run between steps, not inside a call. */
const NOT_CANCELLED = new AbortController().signal;

type StepTools = Parameters<Parameters<Inngest['createFunction']>[1]>[0]['step'];

/** What a child run hands back to its parent's step.invoke: its outcome as data, errors exact. */
export type ChildResult = { weftChild: 'completed'; output: Json } | { weftChild: 'failed'; error: ErrorInfo };

export interface InngestHostContext {
  step: StepTools;
  /** 0-based attempt of the step this invocation executes. */
  attempt: number;
  reporter: RunReporter;
  store: RunStore;
  executors: ExecutorRegistry;
  flows: FlowSource;
  run: { id: string; fixtures: Fixtures | null; depth: number };
  /** Recorded results answering calls without a step (RunHandOver.seed). */
  seed: ReadonlyMap<string, JournalEntry>;
  /** The generic function, for step.invoke of a child run. */
  self: () => InngestFunction.Any;
}

export function inngestHost(ctx: InngestHostContext): StepHost {
  const { step, reporter, store, run } = ctx;
  const runId = run.id;
  /** Checkpoints answered from the seed: their end events say `reused`. */
  const reused = new Set<string>();
  const host: StepHost = {
    emit(event) {
      const seededOrAsIs = seededEvent(event, ctx.seed, reused);
      if (seededOrAsIs) reporter.emit(seededOrAsIs);
    },

    async run(id, call, policy) {
      const seeded = seedAnswer(ctx.seed, id, () => hashCall(call));
      if (seeded) {
        // Answered from the seed: no step, nothing executed or paid for again.
        reused.add(id);
        return seedValue(seeded, rehydrate);
      }
      const result = (await step.run(id, async () => {
        await reporter.flush();
        const attempt = ctx.attempt + 1;
        const emitDelta = deltaEmitter(id, (event) => {
          void reportRunEvents(store, runId, [event]).catch(() => undefined);
        });
        const outcome = await attemptCall(ctx.executors, call, policy, {
          runId,
          stepId: id,
          attempt,
          cancelled: NOT_CANCELLED,
          emitDelta,
        });
        if (outcome.ok || outcome.final) await journalCall(store, runId, id, call, outcome);
        if (outcome.ok) return outcome.value;
        if (outcome.final) return { weftCallFailed: outcome.error } satisfies CallFailed;
        await reportRunEvents(store, runId, [
          { type: 'step.retrying', stepId: id, attempt, error: outcome.error, delayMs: outcome.delayMs },
        ]);
        throw new RetryAfterError(outcome.error.message, outcome.delayMs, { cause: outcome.error });
      })) as Json | CallFailed;
      if (isCallFailed(result)) throw rehydrate(result.weftCallFailed);
      return result;
    },

    async waitForApproval(id, request): Promise<ApprovalOutcome> {
      const given = seedDecision(ctx.seed, id);
      if (given) {
        reused.add(id);
        return given;
      }
      // approval.requested (and the pending record) must be visible before anyone can decide.
      await reporter.flush();
      // A decision recorded before Inngest began waiting would never match the wait.
      const early = (await step.run(`${id}#decided`, async () => {
        const record = await store.getApproval(runId, id);
        if (!record || record.status === 'pending' || record.status === 'timed-out') return null;
        return {
          approved: record.status === 'approved',
          by: record.decidedBy,
          comment: record.comment,
          at: new Date(record.decidedAt ?? Date.now()).toISOString(),
        };
      })) as Omit<DecisionEventData, 'runId' | 'stepId'> | null;
      if (early) return { kind: 'decided', ...early };
      const match = `async.data.runId == ${JSON.stringify(runId)} && async.data.stepId == ${JSON.stringify(id)}`;
      let left = request.timeoutMs;
      for (let round = 1; ; round++) {
        const wait = left === undefined ? LONGEST_WAIT_MS : Math.min(left, LONGEST_WAIT_MS);
        const decision = await step.waitForEvent(round === 1 ? `${id}#wait` : `${id}#wait${round}`, {
          event: DECISION_EVENT,
          timeout: Math.max(1_000, wait),
          if: match,
        });
        if (decision) {
          const data = decision.data as DecisionEventData;
          return { kind: 'decided', approved: data.approved, by: data.by, comment: data.comment, at: data.at };
        }
        if (left !== undefined) {
          left -= wait;
          if (left <= 0) break;
        }
      }
      const at = (await step.run(`${id}#timed-out`, () => new Date().toISOString())) as string;
      return { kind: 'timed-out', at };
    },

    async sleep(id, ms) {
      // Slept in-process before a hand-off: only what is left of it (none, for a finished one).
      const seededUntil = seedSleepUntil(ctx.seed, id, ms);
      if (seededUntil !== undefined) reused.add(id);
      const until =
        seededUntil ?? ((await step.run(`${id}#until`, () => new Date(Date.now() + ms).toISOString())) as string);
      await reporter.flush();
      // Decided in a step's memo, not by this invocation's clock: a later invocation must ask
      // Inngest for the same steps as this one did.
      const wait =
        seededUntil === undefined
          ? true
          : ((await step.run(`${id}#left`, () => Date.parse(seededUntil) > Date.now())) as boolean);
      if (wait) await step.sleepUntil(id, until);
      return { until };
    },

    async spawn(id, ref: FlowRef, input: Json) {
      const seeded = seedAnswer(ctx.seed, id, () => spawnHash(ref, input));
      if (seeded) {
        reused.add(id);
        return seedValue(seeded, rehydrate);
      }
      await reporter.flush();
      if (run.depth >= MAX_SPAWN_DEPTH && SPAWN_DEPTH_EXCEEDED.status === 'failed')
        throw rehydrate(SPAWN_DEPTH_EXCEEDED.error);
      const childId = childRunId(runId, id);
      const seedOfChild = childSeed(ctx.seed, id);
      const plan = (await step.run(`${id}#prepare`, async () => {
        const prepared = await prepareChildRun(store, ctx.flows, 'inngest', {
          parentRunId: runId,
          childRunId: childId,
          stepId: id,
          ref,
          input,
          fixtures: childFixtures(run.fixtures, id),
          seed: seedOfChild,
        });
        return prepared.flow
          ? { flowId: prepared.flow.id, flowVersion: prepared.flow.version ?? 1 }
          : { error: prepared.error ?? { name: 'Error', message: `cannot start flow '${formatFlowRef(ref)}'` } };
      })) as { flowId: string; flowVersion: number } | { error: ErrorInfo };
      if ('error' in plan) throw rehydrate(plan.error);
      host.emit({ type: 'child.started', stepId: id, childRunId: childId, flowId: formatFlowRef(ref) });
      await reporter.flush();
      const data: RunEventData = { runId: childId, ...plan, depth: run.depth + 1, seeded: seedOfChild.length > 0 };
      const result = (await step.invoke(id, { function: ctx.self(), data })) as unknown as ChildResult;
      // Journaled like a call's result (idempotent: the store keeps the first entry per id), so
      // a replay or a test case answers the child without running it.
      await store.commit([
        {
          runId,
          events: [],
          journal: [
            spawnEntry(
              id,
              ref,
              input,
              result.weftChild === 'failed' ? { ok: false, error: result.error } : { ok: true, value: result.output },
            ),
          ],
        },
      ]);
      if (result.weftChild === 'failed') throw rehydrate(result.error);
      return result.output;
    },
  };
  return host;
}

function isCallFailed(value: Json | CallFailed): value is CallFailed {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'weftCallFailed' in value;
}

/** A failure as the interpreter sees it: final, with the original name and message. */
export function rehydrate(info: ErrorInfo): Error {
  const error = new NonRetryableError(info.message);
  if (info.name) error.name = info.name;
  return error;
}
