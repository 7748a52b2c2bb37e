/**
 * The one place runs are created and steered, for the API's routers and the CLI alike (the
 * CLI's `--server` path reaches the same service over tRPC): it validates and records a run,
 * hands it to its backend (a refusal ends the run `failed` with the reason), records approval
 * decisions (of concurrent ones exactly one wins, in the store) and forwards them, cancels and
 * resumes. It never executes anything itself: every backend, in-process included, is a
 * `RunBackend`.
 */
import { type Fixtures, type Flow, isFinalStatus, type Json } from '@weft/engine';
import { type FlowSource, memoryFlowSource } from '../backends/flow-source.ts';
import type { BackendName, RunBackend, RunDecision } from '../backends/run-backend.ts';
import { seedEntries } from '../backends/seed.ts';
import { UnknownRunError } from '../inprocess/errors.ts';
import { handOffSeed, handOverOf } from '../inprocess/handoff.ts';
import type { ApprovalRecord, JournalEntry, RunHandoff, RunRecord, RunStore } from '../store/types.ts';
import { type EngineRetry, type EngineStartOutcome, EngineStarts } from './engine-starts.ts';
import {
  ApprovalClosedError,
  ApprovalNotFoundError,
  BackendRefusedError,
  BackendUnavailableError,
  RunEndedError,
  SideEffectsUnconfirmedError,
} from './errors.ts';
import type { Cost } from './pricing.ts';
import { type RunRules, recordRun } from './record-run.ts';
import type { ReplayPlan } from './replay-plan.ts';
import { readReplaySource } from './replay-source.ts';

export interface RunServiceOptions {
  store: RunStore;
  /** The backends this process can hand runs to; the first is the default. */
  backends: readonly RunBackend[];
  flows?: FlowSource;
  hostTools?: readonly string[];
  maxInputBytes?: number;
  /** Why a backend that is not open is missing, for the error (e.g. the setting to set). */
  unavailableHint?: (backend: string) => string | undefined;
  /** How often a handed-off run's start is tried again while its engine is unreachable (engine-starts.ts). */
  engineRetry?: EngineRetry;
}

export interface StartRunRequest {
  /** A flow document (validated here). */
  flow: unknown;
  input?: Json;
  fixtures?: Fixtures;
  /** Default: the service's first backend. */
  backend?: BackendName;
  runId?: string;
  /** Journal entries to answer calls with instead of executing them (see RunHandOver.seed). */
  seed?: readonly JournalEntry[];
  /** Set by `replay`: the run and checkpoint this one starts from. */
  replayOf?: { runId: string; checkpoint: string };
  /**
   * Start in-process and continue on `to` at `at` (wins over the flow's `handoff`; both are
   * ignored for a run started on Temporal or Inngest, which is durable from the start).
   */
  handoff?: RunHandoff;
}

/**
 * A replay plan as a caller sees it: everything but the seed itself, the version it runs, and
 * what the reused model turns cost the source run (which the replay does not pay again).
 */
export type ReplayPreview = Omit<ReplayPlan, 'seed'> & { flowVersion: number; costSaved: Cost };

export interface ReplayRequest {
  /** The checkpoint to run again from: a step id or path (`agent/llm#3`, `each[2]/pick`). */
  from: string;
  /** Checkpoints answered with these values instead of being executed. */
  pins?: Readonly<Record<string, Json>>;
  /** Steps (or checkpoints) to execute again although they completed before the point. */
  live?: string[];
  /** The flow version the source ran (default), or the flow's current one. */
  version?: 'original' | 'current';
  /** Decisions made before the point: given again (default), or asked again. */
  approvals?: 'reuse' | 'ask';
  /** Instead of the source run's input. */
  input?: Json;
  backend?: BackendName;
  /** Required when the replay would fire side effects again (the preview names them). */
  confirmSideEffects?: boolean;
}

export interface DecisionRequest {
  approved: boolean;
  by: string | null;
  comment?: string | null;
}

export class RunService {
  readonly store: RunStore;
  readonly #backends = new Map<string, RunBackend>();
  readonly #rules: RunRules;
  readonly #hint: RunServiceOptions['unavailableHint'];
  readonly #engineStarts: EngineStarts;

  constructor(options: RunServiceOptions) {
    this.store = options.store;
    this.#engineStarts = new EngineStarts(options.store, options.engineRetry);
    for (const backend of options.backends) this.#backends.set(backend.name, backend);
    this.#rules = {
      flows: options.flows ?? memoryFlowSource([]),
      hostTools: options.hostTools ?? [],
      maxInputBytes: options.maxInputBytes,
      // Refused before the run is recorded: a hand-off this process could not make.
      checkHandoff: (handoff) => {
        if (!this.#backends.has(handoff.to))
          throw new BackendUnavailableError(handoff.to, this.backendNames, this.#hint?.(handoff.to), 'handoff.to');
      },
    };
    this.#hint = options.unavailableHint;
  }

  /** The names of the backends this service hands runs to, the default first. */
  get backendNames(): BackendName[] {
    return [...this.#backends.keys()] as BackendName[];
  }

  backend(name: string): RunBackend {
    const backend = this.#backends.get(name);
    if (!backend) throw new BackendUnavailableError(name, this.backendNames, this.#hint?.(name));
    return backend;
  }

  has(name: string): boolean {
    return this.#backends.has(name);
  }

  /**
   * Validates and records the run, then hands it to its backend. Throws FlowInvalidError,
   * InputInvalidError or InputTooLargeError before anything is recorded; BackendRefusedError
   * after the run has been ended `failed` with the reason.
   */
  async start(request: StartRunRequest): Promise<{ runId: string }> {
    const backend = this.backend(request.backend ?? this.backendNames[0] ?? 'inprocess');
    const { runId, flow } = await recordRun(this.store, this.#rules, {
      flow: request.flow,
      input: request.input ?? {},
      backend: backend.name,
      fixtures: request.fixtures,
      runId: request.runId,
      replayOf: request.replayOf,
      handoff: request.handoff,
    });
    await this.#handOver(
      backend,
      { runId, flow, input: request.input ?? {}, fixtures: request.fixtures },
      request.seed,
    );
    return { runId };
  }

  /**
   * Starts a new run of a past run's pinned flow, input and fixtures, on the same backend (a
   * handed-off run: in-process again, with the same hand-off).
   */
  async rerun(runId: string): Promise<{ runId: string }> {
    const run = await this.#run(runId);
    return this.start({
      flow: run.flow,
      input: run.input,
      ...(run.fixtures ? { fixtures: run.fixtures as Fixtures } : {}),
      ...(run.handoff ? { backend: 'inprocess', handoff: run.handoff } : { backend: run.backend as BackendName }),
    });
  }

  /**
   * Start-up repair of hand-offs a crash interrupted after the run's row named its target but
   * maybe before the engine accepted it (inprocess/handoff.ts): starts every open handed-off run
   * again, with the seed built from the store as the hand-off built it. The start is keyed by the
   * run id on both engines, so a run the engine already has is not started twice. Returns the
   * ids started again; a target not configured here is skipped (another process may have it).
   */
  async recoverHandOffs(): Promise<string[]> {
    const restarted: string[] = [];
    // Asked of the database: start-up must not read (and decode) every open run to find these few.
    for (const run of await this.store.listRuns({ status: ['running', 'waiting'], handedOff: true })) {
      if (!run.handoff || run.backend !== run.handoff.to || !this.#backends.has(run.backend)) continue;
      // An engine still down is tried again in the background: start-up does not wait for it.
      await this.#engineStarts.start(this.backend(run.backend), handOverOf(run, await handOffSeed(this.store, run.id)));
      restarted.push(run.id);
    }
    return restarted;
  }

  /**
   * Starts a run handed off to `to` there (the in-process runner's last step of a hand-off):
   * 'started' once the engine took it; 'waiting' when it could not be reached, the run then
   * marked as waiting for its engine and started as soon as the engine answers.
   */
  startHandedOff(to: string, run: Parameters<RunBackend['start']>[0]): Promise<EngineStartOutcome> {
    return this.#engineStarts.start(this.backend(to), run);
  }

  /**
   * A new run of a past run's pinned flow that answers the checkpoints completed before `from`
   * from the past run's journal (nothing executed or paid for again), and `pins` with the values
   * given; everything else runs. The past run is not changed. Runs on the source's backend
   * unless another is named. A child run is replayed as part of its root run (replay-source.ts).
   */
  async replay(sourceRunId: string, request: ReplayRequest): Promise<{ runId: string } & ReplayPreview> {
    const { root, checkpoint, plan, flow, costSaved } = await this.#planReplay(sourceRunId, request);
    const { seed, ...rest } = plan;
    if (rest.sideEffects.length > 0 && request.confirmSideEffects !== true)
      throw new SideEffectsUnconfirmedError(rest.sideEffects);
    const { runId } = await this.start({
      flow,
      input: request.input ?? root.input,
      ...(root.fixtures ? { fixtures: root.fixtures as Fixtures } : {}),
      backend: request.backend ?? (root.backend as BackendName),
      seed,
      replayOf: { runId: root.id, checkpoint },
    });
    return { runId, ...rest, flowVersion: flow.version ?? 1, costSaved };
  }

  /** What `replay` would reuse, pin and run again (side effects named), without starting anything. */
  async previewReplay(sourceRunId: string, request: ReplayRequest): Promise<ReplayPreview> {
    const { plan, flow, costSaved } = await this.#planReplay(sourceRunId, request);
    const { seed: _seed, ...rest } = plan;
    return { ...rest, flowVersion: flow.version ?? 1, costSaved };
  }

  async #planReplay(sourceRunId: string, request: ReplayRequest) {
    return readReplaySource(this.store, this.#rules.flows, await this.#run(sourceRunId), {
      from: request.from,
      pins: request.pins,
      live: request.live,
      approvals: request.approvals,
      version: request.version,
    });
  }

  /**
   * Records a decision on a pending approval and delivers it to the run's backend. Exactly one
   * of concurrent decisions is recorded; the others get ApprovalClosedError naming the winner.
   */
  async decide(runId: string, stepId: string, decision: DecisionRequest): Promise<ApprovalRecord> {
    const run = await this.#run(runId);
    const approval = await this.store.getApproval(runId, stepId);
    if (!approval) throw new ApprovalNotFoundError(runId, stepId);
    if (approval.status !== 'pending') throw new ApprovalClosedError(approval);
    if (isFinalStatus(run.status)) throw new RunEndedError(run, 'it takes no decisions');
    const backend = this.backend(run.backend);
    const recorded: RunDecision = {
      stepId,
      approved: decision.approved,
      by: decision.by,
      comment: decision.comment ?? null,
    };
    const accepted = await this.store.resolveApproval(runId, stepId, {
      status: decision.approved ? 'approved' : 'rejected',
      by: recorded.by,
      comment: recorded.comment,
      at: Date.now(),
    });
    const now = await this.store.getApproval(runId, stepId);
    if (!accepted) throw new ApprovalClosedError(now ?? approval);
    await backend.decide(runId, recorded);
    return now ?? approval;
  }

  /** Cancels a run that has not ended (and its child runs); returns the run as it stands. */
  async cancel(runId: string): Promise<RunRecord> {
    const run = await this.#run(runId);
    if (!isFinalStatus(run.status)) await this.backend(run.backend).cancel(runId);
    return this.#run(runId);
  }

  /**
   * Continues a run that has not ended: after a crash, a restart, or a missed wake-up. A handed-off
   * run is started on its engine again first (a no-op when the engine has it): a crash may have
   * come between its hand-off and the engine's start.
   */
  async resume(runId: string): Promise<void> {
    const run = await this.#run(runId);
    if (isFinalStatus(run.status)) throw new RunEndedError(run, 'it cannot be resumed');
    const backend = this.backend(run.backend);
    if (run.handoff && run.backend === run.handoff.to) {
      const started = await this.#engineStarts.start(backend, handOverOf(run, await handOffSeed(this.store, run.id)));
      // Unreachable: the start is being tried again, and the run's log says it waits.
      if (started === 'waiting') return;
    }
    await backend.resume(runId);
  }

  /** Where the run's engine shows it in its own UI, when it has one. */
  link(run: Pick<RunRecord, 'id' | 'backend'>): string | undefined {
    return this.#backends.get(run.backend)?.link(run.id);
  }

  async close(): Promise<void> {
    await this.#engineStarts.close();
    for (const backend of [...this.#backends.values()].reverse()) await backend.close().catch(() => undefined);
  }

  async #handOver(
    backend: RunBackend,
    run: { runId: string; flow: Flow; input: Json; fixtures: Fixtures | undefined },
    seed: readonly JournalEntry[] | undefined,
  ): Promise<void> {
    try {
      // Kept with the run (under the seed's own ids), so it survives a crash and a resume.
      if (seed && seed.length > 0)
        await this.store.commit([{ runId: run.runId, journal: seedEntries(seed), events: [] }]);
      await backend.start({
        runId: run.runId,
        flow: run.flow,
        input: run.input,
        ...(run.fixtures ? { fixtures: run.fixtures } : {}),
        ...(seed && seed.length > 0 ? { seed } : {}),
      });
    } catch (cause) {
      const error = new BackendRefusedError(backend.name, cause);
      const info = { name: error.name, message: error.message };
      // The log's last event says so too, as every run's does: whoever follows the run (the
      // editor, `runs show`, a chat stream) sees it end instead of waiting for an engine that
      // never took it. The store keeps one `run.failed` per run should the engine write its own.
      await this.store.commit([{ runId: run.runId, journal: [], events: [{ type: 'run.failed', error: info }] }]);
      await this.store.updateRun(run.runId, { status: 'failed', error: info });
      throw error;
    }
  }

  async #run(runId: string): Promise<RunRecord> {
    const run = await this.store.getRun(runId);
    if (!run) throw new UnknownRunError(runId);
    return run;
  }
}
