/**
 * The embedded, durable in-process runner. A run is a row, a journal and an event log in the
 * store; executing it means claiming it, replaying the interpreter against the journal, and
 * recording what is new. A crash loses nothing: `resume` (or `recover` at start-up) replays.
 * A run that waits (approval, child run) is not kept in memory at all: it parks, and a
 * decision or the child's end resumes it by replay.
 */
import { randomUUID } from 'node:crypto';
import {
  DeterminismError,
  type ErrorInfo,
  type Fixtures,
  type Flow,
  FlowInvalidError,
  type FlowRef,
  flowSchema,
  formatFlowRef,
  interpret,
  isRunInterrupt,
  type Json,
  type RunEvent,
  type RunStatus,
  toErrorInfo,
  validateFlow,
} from '@weft/engine';
import type { ExecutorRegistry, HostTool } from '../executors/index.ts';
import type { RunRecord, RunStore } from '../store/types.ts';
import { FlowNotFoundError, type FlowSource, memoryFlowSource } from './flow-source.ts';
import { GroupCommitter } from './group-commit.ts';
import { type ApprovalDecider, InProcessHost, type SpawnOutcome } from './host.ts';
import { LEASE_MS, newOwnerId, ownerIsDeadHere, RENEW_EVERY_MS } from './ownership.ts';

export const MAX_SPAWN_DEPTH = 16;
export const DEFAULT_MAX_INPUT_BYTES = 1024 * 1024;

export interface RunnerOptions {
  store: RunStore;
  executors: ExecutorRegistry;
  /** Where `spawn` finds flows by id. */
  flows?: FlowSource;
  /** Host-registered tools (also given to the executor registry by the caller). */
  tools?: Record<string, HostTool>;
  /** Asked when an approval is reached; answering undefined parks the run. */
  decide?: ApprovalDecider;
  /** Largest accepted run input, in bytes of JSON. */
  maxInputBytes?: number;
}

export interface StartOptions {
  fixtures?: Fixtures;
  runId?: string;
  /** Decisions for this execution only (the CLI's --approve), by approval step id. */
  decide?: ApprovalDecider;
}

export interface RunOutcome {
  runId: string;
  status: RunStatus;
  output: Json | null;
  error: ErrorInfo | null;
  /** When the run parked: what it waits for. */
  waitingFor: { stepId: string; reason: string }[];
}

export class RunBusyError extends Error {
  constructor(runId: string, owner: string | null) {
    super(`run ${runId} is being executed by ${owner ?? 'another process'}; try again when its lease ends`);
    this.name = 'RunBusyError';
  }
}

export class InputTooLargeError extends Error {
  constructor(bytes: number, limit: number) {
    super(`run input is ${bytes} bytes; the limit is ${limit} (set WEFT_MAX_INPUT_BYTES to change it)`);
    this.name = 'InputTooLargeError';
  }
}

type Listener = (event: RunEvent) => void;

export class InProcessRunner {
  readonly store: RunStore;
  readonly owner = newOwnerId();
  readonly committer: GroupCommitter;
  readonly #options: RunnerOptions;
  readonly #flows: FlowSource;
  readonly #listeners = new Set<Listener>();
  readonly #active = new Map<string, AbortController>();

  constructor(options: RunnerOptions) {
    this.#options = options;
    this.store = options.store;
    this.#flows = options.flows ?? memoryFlowSource([]);
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

  /** Records a new run without executing it. */
  async create(
    doc: unknown,
    input: Json,
    options: StartOptions & { parentRunId?: string; parentStepId?: string } = {},
  ): Promise<string> {
    const flow = await this.#validated(doc);
    this.#checkInput(input);
    const runId = options.runId ?? `run_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    await this.store.createRun({
      id: runId,
      flowId: flow.id,
      flowVersion: flow.version ?? 1,
      flow: flow as unknown as Json,
      input,
      backend: 'inprocess',
      fixtures: (options.fixtures ?? null) as Json,
      parentRunId: options.parentRunId ?? null,
      parentStepId: options.parentStepId ?? null,
    });
    return runId;
  }

  /** Continues a run from its journal: after a crash, a restart, or a decision. */
  async resume(runId: string, options: StartOptions = {}): Promise<RunOutcome> {
    return this.execute(runId, options);
  }

  async execute(runId: string, options: StartOptions = {}): Promise<RunOutcome> {
    const run = await this.#claim(runId);
    if (isFinal(run.status)) {
      await this.store.releaseRun(runId, this.owner);
      return outcomeOf(run, []);
    }
    const controller = new AbortController();
    this.#active.set(runId, controller);
    const renew = setInterval(() => void this.#renew(runId, controller), RENEW_EVERY_MS);
    renew.unref();
    const journal = new Map((await this.store.loadJournal(runId)).map((entry) => [entry.stepId, entry]));
    const host = new InProcessHost({
      runId,
      store: this.store,
      committer: this.committer,
      executors: this.#options.executors,
      journal,
      signal: controller.signal,
      decide: options.decide ?? this.#options.decide,
      spawnChild: (stepId, ref, input) => this.#spawnChild(run, stepId, ref, input, options),
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
    let result: RunOutcome;
    try {
      const flow = flowSchema.parse(run.flow) as Flow;
      const output = await interpret(flow, run.input, host, {
        ...(run.fixtures ? { fixtures: run.fixtures as Fixtures } : {}),
        hostTools: this.#hostToolSpecs(),
      });
      const unused = host.unconsumed();
      if (unused.length > 0) {
        throw new DeterminismError(
          `the journal holds steps this flow no longer runs (${unused.slice(0, 3).join(', ')}): the flow changed under this run`,
        );
      }
      result = await this.#finish(run, host, { type: 'run.completed', output }, { status: 'completed', output });
    } catch (error) {
      if (isRunInterrupt(error) && error.reason === 'suspended') {
        await this.committer.flush();
        await this.store.updateRun(runId, { status: 'waiting' });
        result = { ...outcomeOf(run, host.waitingFor), status: 'waiting' };
      } else if (isRunInterrupt(error) || controller.signal.aborted) {
        result = await this.#finish(
          run,
          host,
          { type: 'run.cancelled', reason: 'cancelled' },
          { status: 'cancelled', error: { name: 'Cancelled', message: 'the run was cancelled' } },
        );
      } else {
        const info = toErrorInfo(error);
        result = await this.#finish(run, host, { type: 'run.failed', error: info }, { status: 'failed', error: info });
      }
    } finally {
      clearInterval(renew);
      this.#active.delete(runId);
      await this.store.releaseRun(runId, this.owner);
    }
    if (result.status !== 'waiting' && run.parentRunId) await this.#wakeParent(run.parentRunId, options);
    return result;
  }

  /** Records a decision (exactly one wins) and resumes the run. */
  async approve(
    runId: string,
    stepId: string,
    decision: { approved: boolean; by?: string; comment?: string },
  ): Promise<{ accepted: boolean; outcome: RunOutcome }> {
    const approval = await this.store.getApproval(runId, stepId);
    if (!approval) throw new Error(`run ${runId} has no approval at step '${stepId}'`);
    const accepted = await this.store.resolveApproval(runId, stepId, {
      status: decision.approved ? 'approved' : 'rejected',
      by: decision.by ?? null,
      comment: decision.comment ?? null,
      at: Date.now(),
    });
    return { accepted, outcome: await this.execute(runId) };
  }

  /** Cancels a run: at once if this process executes it, else by marking it (and its children). */
  async cancel(runId: string): Promise<void> {
    const active = this.#active.get(runId);
    if (active) {
      active.abort(new Error('cancelled'));
      return;
    }
    const run = await this.store.getRun(runId);
    if (!run) throw new Error(`unknown run ${runId}`);
    if (isFinal(run.status)) return;
    await this.store.commit([{ runId, journal: [], events: [{ type: 'run.cancelled', reason: 'cancelled' }] }]);
    await this.store.updateRun(runId, {
      status: 'cancelled',
      error: { name: 'Cancelled', message: 'the run was cancelled' },
    });
    for (const child of await this.store.listRuns({ parentRunId: runId })) await this.cancel(child.id);
  }

  /**
   * Start-up recovery: resumes runs whose owner died mid-run and waiting runs whose approval
   * deadline has passed. Returns the outcomes.
   */
  async recover(): Promise<RunOutcome[]> {
    const outcomes: RunOutcome[] = [];
    for (const run of await this.store.listRuns({ status: ['running'] })) {
      if (run.parentRunId) continue; // a parent resumes its children
      if (run.owner && !ownerIsDeadHere(run.owner) && (run.leaseUntil ?? 0) > Date.now()) continue;
      outcomes.push(await this.execute(run.id));
    }
    const now = Date.now();
    for (const approval of await this.store.listApprovals({ status: 'pending' })) {
      if (approval.deadline !== null && approval.deadline <= now) outcomes.push(await this.execute(approval.runId));
    }
    return outcomes;
  }

  async close(): Promise<void> {
    for (const controller of this.#active.values()) controller.abort(new Error('runner closed'));
    await this.committer.flush();
    this.#options.executors.close?.();
  }

  async #finish(
    run: RunRecord,
    host: InProcessHost,
    event: Parameters<InProcessHost['emit']>[0],
    patch: { status: RunStatus; output?: Json; error?: ErrorInfo },
  ): Promise<RunOutcome> {
    host.emit(event);
    await this.committer.flush();
    await this.store.updateRun(run.id, {
      status: patch.status,
      output: patch.output ?? null,
      error: patch.error ?? null,
    });
    return {
      runId: run.id,
      status: patch.status,
      output: patch.output ?? null,
      error: patch.error ?? null,
      waitingFor: [],
    };
  }

  async #claim(runId: string): Promise<RunRecord> {
    const run = await this.store.getRun(runId);
    if (!run) throw new Error(`unknown run ${runId}`);
    const now = Date.now();
    const claim = { owner: this.owner, leaseUntil: now + LEASE_MS, now };
    const takeOverFrom = run.owner && ownerIsDeadHere(run.owner) ? run.owner : undefined;
    const claimed = await this.store.claimRun(runId, takeOverFrom ? { ...claim, takeOverFrom } : claim);
    if (!claimed) throw new RunBusyError(runId, run.owner);
    return (await this.store.getRun(runId)) ?? run;
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
  ): Promise<SpawnOutcome> {
    const childId = `${parent.id}~${stepId}`;
    let child = await this.store.getRun(childId);
    if (!child) {
      if ((await this.#depth(parent)) >= MAX_SPAWN_DEPTH) {
        return {
          status: 'failed',
          error: {
            name: 'SpawnDepthError',
            message: `spawn depth ${MAX_SPAWN_DEPTH} exceeded: do these flows spawn each other in a cycle?`,
          },
        };
      }
      const flow = await this.#flows.getFlow(ref);
      if (!flow) return { status: 'failed', error: toErrorInfo(new FlowNotFoundError(ref)) };
      const fixtures = parent.fixtures as Fixtures | null;
      await this.create(flow, input, {
        runId: childId,
        parentRunId: parent.id,
        parentStepId: stepId,
        ...(fixtures ? { fixtures } : {}),
      });
      this.committer.addEvent(parent.id, {
        type: 'child.started',
        stepId,
        childRunId: childId,
        flowId: formatFlowRef(ref),
      });
      child = await this.store.getRun(childId);
    }
    if (child && isFinal(child.status)) return childOutcome(child);
    // The child runs to its end here; if it parks, the parent parks too and the child's end wakes it.
    const outcome = await this.execute(childId, {
      ...options,
      decide: options.decide ?? this.#options.decide,
    } as StartOptions);
    if (outcome.status === 'waiting') return { status: 'waiting' };
    return outcome.status === 'completed'
      ? { status: 'completed', output: outcome.output }
      : {
          status: outcome.status === 'cancelled' ? 'cancelled' : 'failed',
          error: outcome.error ?? { name: 'Error', message: 'child run failed' },
        };
  }

  async #wakeParent(parentRunId: string, options: StartOptions): Promise<void> {
    if (this.#active.has(parentRunId)) return; // the parent is executing and awaits this child directly
    const parent = await this.store.getRun(parentRunId);
    if (parent?.status === 'waiting') await this.execute(parentRunId, options);
  }

  async #depth(run: RunRecord): Promise<number> {
    let depth = 0;
    let current: RunRecord | undefined = run;
    while (current?.parentRunId && depth <= MAX_SPAWN_DEPTH) {
      depth++;
      current = await this.store.getRun(current.parentRunId);
    }
    return depth;
  }

  async #validated(doc: unknown): Promise<Flow> {
    const result = validateFlow(doc, {
      hostTools: Object.keys(this.#options.tools ?? {}),
      flows: await this.#flows.documents(),
    });
    if (!result.ok) throw new FlowInvalidError(result.errors);
    return result.flow;
  }

  #checkInput(input: Json): void {
    const limit = this.#options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES;
    const bytes = Buffer.byteLength(JSON.stringify(input) ?? 'null');
    if (bytes > limit) throw new InputTooLargeError(bytes, limit);
  }

  #hostToolSpecs() {
    const specs: Record<string, { description: string; parameters: Record<string, Json> }> = {};
    for (const [name, tool] of Object.entries(this.#options.tools ?? {}))
      specs[name] = { description: tool.description, parameters: tool.parameters };
    return specs;
  }
}

function isFinal(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function outcomeOf(run: RunRecord, waitingFor: RunOutcome['waitingFor']): RunOutcome {
  return { runId: run.id, status: run.status, output: run.output, error: run.error, waitingFor };
}

function childOutcome(child: RunRecord): SpawnOutcome {
  if (child.status === 'completed') return { status: 'completed', output: child.output };
  return {
    status: child.status === 'cancelled' ? 'cancelled' : 'failed',
    error: child.error ?? { name: 'Error', message: 'child run failed' },
  };
}
