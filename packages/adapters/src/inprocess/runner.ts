/**
 * The embedded, durable in-process runner. A run is a row, a journal and an event log in the
 * store; executing it means claiming it, replaying the interpreter against the journal, and
 * recording what is new. A crash loses nothing: `resume` (or `recover` at start-up) replays.
 * A run that waits (approval, child run) is not kept in memory at all: it parks, and a
 * decision or the child's end resumes it by replay. `close()` is not a cancel: the runs it
 * interrupts stay `running`, unowned, for the next process's `recover()`.
 */
import {
  type ErrorInfo,
  type Fixtures,
  type Flow,
  type FlowRef,
  flowSchema,
  formatFlowRef,
  interpret,
  isFinalStatus,
  isRunInterrupt,
  type Json,
  type RunEvent,
  type RunStatus,
  toErrorInfo,
} from '@weft/engine';
import {
  childFixtures,
  childOptions,
  childRunId,
  MAX_SPAWN_DEPTH,
  SPAWN_DEPTH_EXCEEDED,
  spawnDepth,
  spawnOutcome,
} from '../backends/children.ts';
import { FlowNotFoundError, type FlowSource, memoryFlowSource } from '../backends/flow-source.ts';
import { recordCancelled } from '../backends/run-rows.ts';
import { seedEntries, splitJournal } from '../backends/seed.ts';
import { hostToolSpecs } from '../executors/tool.ts';
import { type RunRules, recordRun, validatedFlow } from '../service/record-run.ts';
import type { JournalEntry, RunRecord, RunStore } from '../store/types.ts';
import { DeadlineTimers } from './deadlines.ts';
import { RunBusyError, RunnerClosedError, UnknownRunError } from './errors.ts';
import { GroupCommitter } from './group-commit.ts';
import { HandOffUnavailableError, handOffRun } from './handoff.ts';
import { InProcessHost, type SpawnOutcome } from './host.ts';
import { outcomeOf, type ResumeOptions, type RunnerOptions, type RunOutcome, type StartOptions } from './options.ts';
import { claimRun, LEASE_MS, newOwnerId, RENEW_EVERY_MS } from './ownership.ts';
import { canProceed, recoverableRuns } from './recovery.ts';

type Listener = (event: RunEvent) => void;

const MAX_CREATED_FLOWS = 1_000;

export class InProcessRunner {
  readonly store: RunStore;
  readonly owner = newOwnerId();
  readonly committer: GroupCommitter;
  readonly #options: RunnerOptions;
  readonly #flows: FlowSource;
  readonly #listeners = new Set<Listener>();
  readonly #active = new Map<string, AbortController>();
  readonly #executions = new Set<Promise<unknown>>();
  /** The execution of each run in flight here (a cancel waits for it to stop). */
  readonly #running = new Map<string, Promise<RunOutcome>>();
  readonly #deadlines: DeadlineTimers;
  /**
   * The validated flow of each run created here and not executed yet: executing it needs no
   * second parse of the stored document (a run resumed after a restart parses it).
   */
  readonly #created = new Map<string, Flow>();
  /** What the interpreter knows of the host tools: the same for every run, so built once. */
  readonly #hostToolSpecs: ReturnType<typeof hostToolSpecs>;
  #closed = false;

  constructor(options: RunnerOptions) {
    this.#options = options;
    this.store = options.store;
    this.#flows = options.flows ?? memoryFlowSource([]);
    this.#hostToolSpecs = hostToolSpecs(options.tools ?? {});
    this.#deadlines = new DeadlineTimers(options.store, (runId) => {
      if (!this.#closed) void this.#executeUnlessBusy(runId, {}).catch(() => {});
    });
    this.committer = new GroupCommitter(options.store, (events) => {
      for (const event of events) for (const listener of this.#listeners) listener(event);
    });
  }

  /** Every stored event of every run this runner executes, as it is committed. */
  onEvent(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Validates the flow and input, records the run, and executes it until it ends or parks. */
  async start(doc: unknown, input: Json, options: StartOptions = {}): Promise<RunOutcome> {
    const runId = await this.create(doc, input, options);
    return this.execute(runId, options);
  }

  /** Records a new run without executing it (validated as RunService does: recordRun). */
  async create(
    doc: unknown,
    input: Json,
    options: StartOptions & { parentRunId?: string; parentStepId?: string } = {},
  ): Promise<string> {
    const { runId, flow } = await recordRun(this.store, this.#rules(), {
      flow: doc,
      input,
      backend: 'inprocess',
      fixtures: options.fixtures,
      runId: options.runId,
      parentRunId: options.parentRunId,
      parentStepId: options.parentStepId,
    });
    this.#created.set(runId, flow);
    // A run created here but executed elsewhere must not pin its flow forever.
    if (this.#created.size > MAX_CREATED_FLOWS) this.#created.delete(this.#created.keys().next().value as string);
    return runId;
  }

  /** Continues a run from its journal: after a crash, a restart, or a decision. */
  async resume(runId: string, options: ResumeOptions = {}): Promise<RunOutcome> {
    return this.execute(runId, options);
  }

  /**
   * Executes a run until it ends or parks. Throws RunBusyError when another execution (here or
   * in another live process) holds it.
   */
  async execute(runId: string, options: ResumeOptions = {}): Promise<RunOutcome> {
    if (this.#closed) throw new RunnerClosedError();
    // The store lets an owner claim its own run again; one runner must not execute it twice.
    const replacement = options.flow === undefined ? undefined : await validatedFlow(options.flow, this.#rules());
    if (this.#active.has(runId)) throw new RunBusyError(runId, this.owner);
    // Active from here, before the claim: a cancel made meanwhile aborts this execution instead
    // of writing `cancelled` under it (which the execution would then overwrite).
    const controller = new AbortController();
    this.#active.set(runId, controller);
    const execution = this.#execute(runId, options, replacement, controller);
    this.#executions.add(execution);
    this.#running.set(runId, execution);
    try {
      return await execution;
    } finally {
      this.#executions.delete(execution);
      if (this.#running.get(runId) === execution) this.#running.delete(runId);
      if (this.#active.get(runId) === controller) this.#active.delete(runId);
    }
  }

  async #execute(
    runId: string,
    options: StartOptions,
    replacement: Flow | undefined,
    controller: AbortController,
  ): Promise<RunOutcome> {
    const created = this.#created.get(runId);
    const run = await claimRun(this.store, this.owner, runId, created);
    this.#created.delete(runId);
    if (isFinalStatus(run.status)) {
      await this.store.releaseRun(runId, this.owner);
      return outcomeOf(run);
    }
    if (replacement && replacement.id !== run.flowId) {
      await this.store.releaseRun(runId, this.owner);
      throw new Error(`run ${runId} runs flow '${run.flowId}'; it cannot be resumed with flow '${replacement.id}'`);
    }
    const renew = setInterval(() => void this.#renew(runId, controller), RENEW_EVERY_MS);
    renew.unref();
    let host: InProcessHost | undefined;
    let result: RunOutcome;
    try {
      const { journal, seed } = splitJournal(await this.store.loadJournal(runId));
      host = new InProcessHost({
        runId,
        store: this.store,
        committer: this.committer,
        executors: this.#options.executors,
        journal,
        seed,
        signal: controller.signal,
        decide: options.decide ?? this.#options.decide,
        handoff: run.handoff ?? undefined,
        spawnChild: (stepId, ref, input, seed) => this.#spawnChild(run, stepId, ref, input, options, seed),
      });
      host.emit({
        type: 'run.started',
        flowId: run.flowId,
        flowVersion: run.flowVersion,
        input: run.input,
        backend: run.backend,
        ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
      });
      if (run.status !== 'running') await this.store.updateRun(runId, { status: 'running' });
      result = await this.#interpret(run, host, controller.signal, replacement ?? created);
    } finally {
      clearInterval(renew);
      // Released before looking again below, which executes the run anew.
      if (this.#active.get(runId) === controller) this.#active.delete(runId);
      await this.store.releaseRun(runId, this.owner);
    }
    // A decision or a child's end that arrived while this execution still held the run found
    // it busy and left it to us: look once more now that the run is parked and released.
    if (result.status === 'waiting' && !this.#closed && (await canProceed(this.store, runId, host.waitingFor)))
      return this.#executeUnlessBusy(runId, options);
    if (result.status === 'waiting' && !this.#closed) await this.#deadlines.arm(runId);
    if (isFinalStatus(result.status) && run.parentRunId) await this.#wakeParent(run.parentRunId, options);
    return result;
  }

  /** Replays the interpreter against the journal and records how this execution ended. */
  async #interpret(
    run: RunRecord,
    host: InProcessHost,
    signal: AbortSignal,
    /** The flow already validated (a replacement, or the one the run was created with here); else parsed from the run. */
    known: Flow | undefined,
  ): Promise<RunOutcome> {
    try {
      const flow = known ?? (flowSchema.parse(run.flow) as Flow);
      const output = await (this.#options.interpret ?? interpret)(flow, run.input, host, {
        ...(run.fixtures ? { fixtures: run.fixtures as Fixtures } : {}),
        hostTools: this.#hostToolSpecs,
      });
      const diverged = host.divergence ?? host.leftBehind();
      if (diverged) throw diverged;
      return await this.#finish(run, host, { type: 'run.completed', output }, { status: 'completed', output });
    } catch (error) {
      // Checked in this order: a cancel wins over a branch that parked meanwhile, and a replay
      // that met a step recorded with other input is a determinism error whatever else happened.
      if (signal.reason instanceof RunnerClosedError) {
        // Not an end: the run stays `running` and, once released, is the next recover()'s.
        await this.committer.flush();
        return { ...outcomeOf(run), status: 'running' };
      }
      if (signal.aborted || (isRunInterrupt(error) && error.reason === 'cancelled')) {
        const cancelled = { name: 'Cancelled', message: 'the run was cancelled' };
        return this.#finish(
          run,
          host,
          { type: 'run.cancelled', reason: 'cancelled' },
          { status: 'cancelled', error: cancelled },
        );
      }
      let failure = error;
      if (isRunInterrupt(error) && host.handOffAt !== undefined && run.handoff && !host.divergence) {
        const { handOff } = this.#options;
        if (handOff)
          return handOffRun(this.store, this.committer, handOff, this.owner, run, run.handoff, host.handOffAt);
        failure = new HandOffUnavailableError(run.id, run.handoff, host.handOffAt);
      }
      if (isRunInterrupt(failure) && !host.divergence) {
        await this.committer.flush();
        await this.store.updateRun(run.id, { status: 'waiting' });
        return { ...outcomeOf(run, host.waitingFor), status: 'waiting' };
      }
      const info = toErrorInfo(host.divergence ?? failure);
      return this.#finish(run, host, { type: 'run.failed', error: info }, { status: 'failed', error: info });
    }
  }

  /**
   * Cancels a run and its unfinished child runs: at once where this process executes them,
   * else by marking them (an owner in another process stops at its next lease renewal).
   * Cancelling a parked child wakes its parent, whose spawn step then fails.
   */
  async cancel(runId: string): Promise<void> {
    const run = await this.store.getRun(runId);
    if (!run) throw new UnknownRunError(runId);
    if (isFinalStatus(run.status)) return;
    const active = this.#active.get(runId);
    if (active) active.abort(new Error('cancelled'));
    else await recordCancelled(this.store, runId);
    // An active parent awaits its inline child: the child must stop for the parent to stop.
    for (const child of await this.store.listRuns({ parentRunId: runId })) await this.cancel(child.id);
    if (active) {
      // The execution records the cancel itself, unless it had already parked when the abort came.
      await this.#running.get(runId)?.catch(() => undefined);
      const now = await this.store.getRun(runId);
      if (now && !isFinalStatus(now.status)) await recordCancelled(this.store, runId);
    } else if (run.parentRunId) await this.#wakeParent(run.parentRunId, {});
  }

  /**
   * Start-up recovery: resumes runs whose owner died or let go mid-run, waiting runs whose
   * approval deadline has passed, and waiting runs with a wake-up they missed (a decision or a
   * child's end recorded by a process that died before resuming them). Runs another live
   * process holds are skipped. Returns the outcomes.
   */
  async recover(): Promise<RunOutcome[]> {
    const outcomes: RunOutcome[] = [];
    for (const runId of await recoverableRuns(this.store)) {
      try {
        outcomes.push(await this.execute(runId));
      } catch (error) {
        if (!(error instanceof RunBusyError)) throw error;
      }
    }
    return outcomes;
  }

  /**
   * Stops executing: runs in flight are interrupted but not cancelled (they stay `running`,
   * released, for `recover()`); resolves once every execution has let go of its run.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#deadlines.clear();
    for (const controller of this.#active.values()) controller.abort(new RunnerClosedError());
    await Promise.allSettled([...this.#executions]);
    await this.committer.flush();
    this.#options.executors.close?.();
  }

  async #executeUnlessBusy(runId: string, options: StartOptions): Promise<RunOutcome> {
    try {
      return await this.execute(runId, options);
    } catch (error) {
      // Whoever holds the run looks again when it parks (see #execute), so nothing is lost.
      if (error instanceof RunBusyError || error instanceof RunnerClosedError) return this.#current(runId);
      throw error;
    }
  }

  async #current(runId: string): Promise<RunOutcome> {
    const run = await this.store.getRun(runId);
    if (!run) throw new UnknownRunError(runId);
    return outcomeOf(run);
  }

  async #finish(
    run: RunRecord,
    host: InProcessHost,
    event: Parameters<InProcessHost['emit']>[0],
    patch: { status: RunStatus; output?: Json; error?: ErrorInfo },
  ): Promise<RunOutcome> {
    if (patch.status !== 'cancelled') {
      // Cancelled from another process while this one worked: the cancel stands.
      const current = await this.store.getRun(run.id);
      if (current?.status === 'cancelled') {
        await this.committer.flush();
        return outcomeOf(current);
      }
    }
    host.emit(event);
    await this.committer.flush();
    const ended = { status: patch.status, output: patch.output ?? null, error: patch.error ?? null };
    await this.store.updateRun(run.id, ended);
    return { runId: run.id, ...ended, waitingFor: [] };
  }

  async #renew(runId: string, controller: AbortController): Promise<void> {
    const kept = await this.store.renewLease(runId, this.owner, Date.now() + LEASE_MS).catch(() => true);
    const run = await this.store.getRun(runId).catch(() => undefined);
    // Cancelled from another process, or the run was taken over: stop working on it here.
    if (!kept || run?.status === 'cancelled') controller.abort(new Error('cancelled'));
  }

  async #spawnChild(
    parent: RunRecord,
    stepId: string,
    ref: FlowRef,
    input: Json,
    options: StartOptions,
    seed: JournalEntry[],
  ): Promise<SpawnOutcome> {
    const childId = childRunId(parent.id, stepId);
    let child = await this.store.getRun(childId);
    if (!child) {
      if ((await spawnDepth(this.store, parent)) >= MAX_SPAWN_DEPTH) return SPAWN_DEPTH_EXCEEDED;
      const flow = await this.#flows.getFlow(ref);
      if (!flow) return { status: 'failed', error: toErrorInfo(new FlowNotFoundError(ref)) };
      const fixtures = childFixtures(parent.fixtures as Fixtures | null, stepId);
      await this.create(flow, input, {
        runId: childId,
        parentRunId: parent.id,
        parentStepId: stepId,
        ...(fixtures ? { fixtures } : {}),
      });
      // A replay from inside a child run: the child's own checkpoints before the point.
      if (seed.length > 0) await this.store.commit([{ runId: childId, journal: seedEntries(seed), events: [] }]);
      child = await this.store.getRun(childId);
    }
    // Outside the creation branch: a crash right after creating the child must not lose it.
    this.committer.addEvent(parent.id, {
      type: 'child.started',
      stepId,
      childRunId: childId,
      flowId: formatFlowRef(ref),
    });
    if (child && isFinalStatus(child.status)) return spawnOutcome(child);
    // The child runs to its end here; if it parks, the parent parks too and the child's end wakes it.
    let outcome: RunOutcome;
    try {
      outcome = await this.execute(childId, childOptions(options, this.#options.decide));
    } catch (error) {
      // Executed elsewhere right now (a decision being applied): its end wakes this parent.
      if (error instanceof RunBusyError) return { status: 'waiting' };
      throw error;
    }
    return spawnOutcome(outcome);
  }

  async #wakeParent(parentRunId: string, options: StartOptions): Promise<void> {
    // An executing parent awaits this child directly, or looks again when it parks.
    if (this.#active.has(parentRunId) || this.#closed) return;
    const parent = await this.store.getRun(parentRunId);
    if (parent?.status === 'waiting') await this.#executeUnlessBusy(parentRunId, childOptions(options));
  }

  #rules(): RunRules {
    return {
      flows: this.#flows,
      hostTools: Object.keys(this.#options.tools ?? {}),
      maxInputBytes: this.#options.maxInputBytes,
    };
  }
}
