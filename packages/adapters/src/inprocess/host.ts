/**
 * The in-process StepHost for one execution of one run. Completed calls come from the journal
 * (replay); new calls go to the executor registry with the step's retry and timeout policy and
 * are journaled (group commit) before their result is handed back.
 */
import {
  type ApprovalOutcome,
  type ApprovalRequest,
  type CallPolicy,
  DeterminismError,
  type ErrorInfo,
  type FlowRef,
  hashCall,
  type Json,
  NonRetryableError,
  type RunEventInput,
  RunInterrupt,
  retryDelayMs,
  type StepCall,
  type StepHost,
  sameCall,
  toErrorInfo,
} from '@weft/engine';
import { deltaEmitter } from '../backends/attempt.ts';
import { isHandOffPoint } from '../backends/handoff.ts';
import {
  childSeed,
  seedAnswer,
  seedDecision,
  seededEvent,
  seedSleepUntil,
  seedValue,
  sleepHash,
  spawnHash,
} from '../backends/seed.ts';
import { abortableDelay, raceAbort, StepTimeoutError, withTimeout } from '../backends/timing.ts';
import type { ExecutorRegistry } from '../executors/index.ts';
import { checkEventSize, type EventLimits, eventLimits } from '../limits.ts';
import type { JournalEntry, RunHandoff, RunStore } from '../store/types.ts';
import type { GroupCommitter } from './group-commit.ts';

export type ApprovalDecider = (request: {
  runId: string;
  stepId: string;
  prompt: string;
}) => Promise<{ approved: boolean; by?: string; comment?: string } | undefined>;

export interface HostDeps {
  runId: string;
  store: RunStore;
  committer: GroupCommitter;
  executors: ExecutorRegistry;
  journal: Map<string, JournalEntry>;
  /** Recorded results that answer a call made with the same input (see backends/seed.ts). */
  seed: ReadonlyMap<string, JournalEntry>;
  signal: AbortSignal;
  decide?: ApprovalDecider | undefined;
  /** The event and run output size limits; default from the environment (limits.ts). */
  limits?: EventLimits;
  /** Where this run leaves the in-process runner for a durable engine (inprocess/handoff.ts). */
  handoff?: RunHandoff | undefined;
  /** Runs a child flow to its end (or until it parks), with its part of the seed; provided by the runner. */
  spawnChild(stepId: string, ref: FlowRef, input: Json, seed: JournalEntry[]): Promise<SpawnOutcome>;
}

export type SpawnOutcome =
  | { status: 'completed'; output: Json }
  | { status: 'failed' | 'cancelled'; error: ErrorInfo }
  | { status: 'waiting' };

export class InProcessHost implements StepHost {
  /** Made when the first approval is requested: most runs never hold one. */
  #announcements: Map<string, RunEventInput> | undefined;
  readonly #deps: HostDeps;
  readonly #consumed = new Set<string>();
  /** Checkpoints this execution answered from the seed: their end events say `reused`. */
  readonly #reused = new Set<string>();
  /** What the run is parked on, when it parks. */
  readonly waitingFor: { stepId: string; reason: 'approval' | 'child run' }[] = [];
  /**
   * The first determinism error of this execution. A step may swallow it (an agent hands a
   * failed tool call back to the model), so the runner fails the run with it regardless.
   */
  divergence: DeterminismError | undefined;
  /**
   * The checkpoint at which this execution handed off (see `#handOffIfAt`): the runner then
   * continues the run on `handoff.to` with what the journal holds.
   */
  handOffAt: string | undefined;
  /** The type of the step started at each id, for the hand-off point `first-tool-call`. */
  #stepTypes: Map<string, string> | undefined;

  /** The event and run output limits (limits.ts), read once per execution. */
  readonly #limits: EventLimits;

  constructor(deps: HostDeps) {
    this.#deps = deps;
    this.#limits = deps.limits ?? eventLimits();
  }

  emit(given: RunEventInput): void {
    const event = seededEvent(given, this.#deps.seed, this.#reused);
    if (!event) return;
    // Before anything holds it: the interpreter fails the step (or the runner the run) with the
    // SizeLimitError, so an oversize value is never serialized into the store.
    checkEventSize(event, this.#limits);
    // Only a hand-off point reads step types (a run in flight should not hold one per step).
    if (event.type === 'step.started' && this.#deps.handoff) {
      this.#stepTypes ??= new Map();
      this.#stepTypes.set(event.stepId, event.stepType);
    }
    if (event.type === 'approval.requested') {
      // Announced only once the request is stored (see waitForApproval): whoever reacts to the
      // event by deciding must find something to decide.
      this.#announcements ??= new Map();
      this.#announcements.set(event.stepId, event);
      return;
    }
    this.#deps.committer.addEvent(this.#deps.runId, event);
  }

  /**
   * Journaled steps a completed replay never asked for: the flow no longer runs them. Only a
   * run that completed can be judged so: where it parks or fails, a `map` may stop launching
   * iterations at another point than the first time, without any change to the flow.
   */
  leftBehind(): DeterminismError | undefined {
    const unused = [...this.#deps.journal.keys()].filter((id) => !this.#consumed.has(id));
    if (unused.length === 0) return undefined;
    return new DeterminismError(
      `the journal holds steps this flow no longer runs (${unused.slice(0, 3).join(', ')}): the flow changed under this run`,
    );
  }

  async run(id: string, call: StepCall, policy: CallPolicy): Promise<Json> {
    const inputHash = hashCall(call);
    const recorded = this.#replay(id, inputHash) ?? this.#fromSeed(id, inputHash);
    if (recorded) return recorded.value;
    this.#checkCancelled();
    this.#handOffIfAt(id, call.kind);
    const { executors, signal, runId } = this.#deps;
    for (let attempt = 1; ; attempt++) {
      const emitDelta = deltaEmitter(id, (event) => this.emit(event));
      const attemptSignal =
        policy.timeoutMs === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(policy.timeoutMs)]);
      try {
        const work = executors.execute(call, { signal: attemptSignal, runId, stepId: id, emitDelta });
        // Raced against the run's signal too: a cancel must not wait for a tool that ignores it.
        const output = await withTimeout(raceAbort(work, signal), policy.timeoutMs, id);
        await this.#record({
          stepId: id,
          kind: call.kind,
          inputHash,
          status: 'completed',
          output,
          error: null,
        });
        return output;
      } catch (caught) {
        this.#checkCancelled();
        // An executor that honours the signal reports a bare abort: name the timeout instead.
        const error = attemptSignal.aborted
          ? new StepTimeoutError(`step '${id}' timed out after ${policy.timeoutMs} ms`)
          : caught;
        const retryable = !(error instanceof NonRetryableError) && !(error instanceof DeterminismError);
        if (!retryable || attempt >= policy.retry.maxAttempts) {
          const info = toErrorInfo(error);
          if (attempt > 1) info.message = `${info.message} (after ${attempt} attempts)`;
          await this.#record({
            stepId: id,
            kind: call.kind,
            inputHash,
            status: 'failed',
            output: null,
            error: info,
          });
          throw rehydrate(info);
        }
        const delayMs = retryDelayMs(policy.retry, attempt);
        this.emit({ type: 'step.retrying', stepId: id, attempt, error: toErrorInfo(error), delayMs });
        await abortableDelay(delayMs, signal).catch(() => this.#checkCancelled());
      }
    }
  }

  async sleep(id: string, ms: number): Promise<{ until: string }> {
    const hash = sleepHash(ms);
    let until: number;
    const recorded = this.#replay(id, hash);
    const seeded = recorded ? undefined : seedSleepUntil(this.#deps.seed, id, ms);
    if (recorded) {
      until = Date.parse(String((recorded.value as { until: string }).until));
    } else if (seeded !== undefined) {
      // Slept (or sleeping) before a hand-off or in a seeded run: only what is left of it.
      this.#reused.add(id);
      until = Date.parse(seeded);
    } else {
      this.#checkCancelled();
      this.#handOffIfAt(id, 'sleep');
      until = Date.now() + ms;
      // The wake-up time is journaled first: a crash mid-sleep resumes with only the rest of it.
      await this.#record({
        stepId: id,
        kind: 'sleep',
        inputHash: hash,
        status: 'completed',
        output: { until: new Date(until).toISOString() },
        error: null,
      });
    }
    const remaining = until - Date.now();
    if (remaining > 0) await abortableDelay(remaining, this.#deps.signal).catch(() => this.#checkCancelled());
    return { until: new Date(until).toISOString() };
  }

  async waitForApproval(id: string, request: ApprovalRequest): Promise<ApprovalOutcome> {
    const { store, runId, decide } = this.#deps;
    this.#consumed.add(id);
    const given = seedDecision(this.#deps.seed, id);
    if (given) {
      this.#reused.add(id);
      return given;
    }
    let approval = await store.getApproval(runId, id);
    if (!approval) {
      this.#handOffIfAt(id, 'approval');
      const now = Date.now();
      const deadline = request.timeoutMs === undefined ? null : now + request.timeoutMs;
      await store.requestApproval({ runId, stepId: id, prompt: request.prompt, deadline, now });
      approval = await store.getApproval(runId, id);
    }
    const announcement = this.#announcements?.get(id);
    if (announcement) {
      this.#announcements?.delete(id);
      this.#deps.committer.addEvent(runId, announcement);
    }
    if (approval && approval.status === 'pending' && approval.deadline !== null && approval.deadline <= Date.now()) {
      await store.resolveApproval(runId, id, { status: 'timed-out', by: 'timeout', comment: null, at: Date.now() });
      approval = await store.getApproval(runId, id);
    }
    if (approval && approval.status === 'pending' && decide) {
      // A person may take their time: a cancel or a closing runner must not wait for them.
      const decision = await raceAbort(decide({ runId, stepId: id, prompt: request.prompt }), this.#deps.signal);
      if (decision) {
        await store.resolveApproval(runId, id, {
          status: decision.approved ? 'approved' : 'rejected',
          by: decision.by ?? null,
          comment: decision.comment ?? null,
          at: Date.now(),
        });
        approval = await store.getApproval(runId, id);
      }
    }
    if (!approval || approval.status === 'pending') {
      this.waitingFor.push({ stepId: id, reason: 'approval' });
      throw new RunInterrupt('suspended', `waiting for approval at ${id}`);
    }
    const at = new Date(approval.decidedAt ?? Date.now()).toISOString();
    if (approval.status === 'timed-out') return { kind: 'timed-out', at };
    return {
      kind: 'decided',
      approved: approval.status === 'approved',
      by: approval.decidedBy,
      comment: approval.comment,
      at,
    };
  }

  async spawn(id: string, ref: FlowRef, input: Json): Promise<Json> {
    const hash = spawnHash(ref, input);
    const recorded = this.#replay(id, hash) ?? this.#fromSeed(id, hash);
    if (recorded) return recorded.value;
    this.#checkCancelled();
    this.#handOffIfAt(id, 'spawn');
    const outcome = await this.#deps.spawnChild(id, ref, input, childSeed(this.#deps.seed, id));
    switch (outcome.status) {
      case 'completed':
        await this.#record({
          stepId: id,
          kind: 'spawn',
          inputHash: hash,
          status: 'completed',
          output: outcome.output,
          error: null,
        });
        return outcome.output;
      case 'failed':
      case 'cancelled':
        await this.#record({
          stepId: id,
          kind: 'spawn',
          inputHash: hash,
          status: 'failed',
          output: null,
          error: outcome.error,
        });
        throw rehydrate(outcome.error);
      case 'waiting':
        this.waitingFor.push({ stepId: id, reason: 'child run' });
        throw new RunInterrupt('suspended', `waiting for the child run of ${id}`);
    }
  }

  #replay(id: string, hash: string): { value: Json } | undefined {
    const entry = this.#deps.journal.get(id);
    if (!entry) return undefined;
    this.#consumed.add(id);
    if (!sameCall(entry.inputHash, hash)) {
      this.divergence ??= new DeterminismError(
        `step '${id}' was recorded with different input than the flow now gives it: the flow changed under this run (recorded ${entry.kind}, now ${hash.split(/[:@]/)[0]})`,
      );
      throw this.divergence;
    }
    if (entry.status === 'failed') throw rehydrate(entry.error ?? { name: 'Error', message: 'failed' });
    return { value: entry.output };
  }

  /** A seed's answer when it was recorded for this very input; else the call runs live. */
  #fromSeed(id: string, hash: string): { value: Json } | undefined {
    const entry = seedAnswer(this.#deps.seed, id, () => hash);
    if (!entry) return undefined;
    this.#reused.add(id);
    return { value: seedValue(entry, rehydrate) };
  }

  /** Not async: the committer's promise is handed on as is, without a turn of its own per step. */
  #record(entry: JournalEntry): Promise<void> {
    this.#consumed.add(entry.stepId);
    this.#deps.journal.set(entry.stepId, entry);
    return this.#deps.committer.addJournal(this.#deps.runId, entry);
  }

  /**
   * Stops before executing a live call at the run's hand-off point, and before every live call
   * after it (a parallel branch must not go on here): calls in flight finish and are journaled,
   * the rest runs on the target engine.
   */
  #handOffIfAt(id: string, kind: string): void {
    const { handoff } = this.#deps;
    if (!handoff) return;
    if (this.handOffAt === undefined && !isHandOffPoint(handoff.at, { id, kind, stepType: this.#stepTypes?.get(id) }))
      return;
    this.handOffAt ??= id;
    throw new RunInterrupt('handed-off', `handed off to ${handoff.to} at ${id}`);
  }

  #checkCancelled(): void {
    if (this.#deps.signal.aborted) throw new RunInterrupt('cancelled');
  }
}

/** A recorded failure, thrown again: non-retryable, since it is already final. */
function rehydrate(info: ErrorInfo): Error {
  const error = new NonRetryableError(info.message);
  if (info.name) error.name = info.name;
  return error;
}

export { StepTimeoutError };
