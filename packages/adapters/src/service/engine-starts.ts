/**
 * Starting a handed-off run on its engine (inprocess/handoff.ts step 3) until the engine takes
 * it. An engine that cannot be reached at the hand-off point (the Temporal frontend or the
 * Inngest server down, restarting, unreachable) does not leave the run to the next `weft serve`
 * start or `weft runs resume`: the run's log says it waits for its engine
 * (`run.engine-unreachable`), the start is tried again with backoff (0.5 s doubling to 5 s),
 * and once the engine answers the run goes on there (`run.engine-reached`). Every start is keyed
 * by the run id on both engines, so trying again never starts a run twice.
 */
import { isFinalStatus, toErrorInfo } from '@weft/engine';
import type { RunBackend, RunHandOver } from '../backends/run-backend.ts';
import { abortableDelay } from '../backends/timing.ts';
import type { RunStore } from '../store/types.ts';

export interface EngineRetry {
  /** The wait before the second try. */
  firstDelayMs: number;
  /** The wait doubles up to this. */
  maxDelayMs: number;
}

export const ENGINE_RETRY: EngineRetry = { firstDelayMs: 500, maxDelayMs: 5_000 };

export type EngineStartOutcome = 'started' | 'waiting';

export class EngineStarts {
  readonly #store: RunStore;
  readonly #retry: EngineRetry;
  readonly #closing = new AbortController();
  /** The runs whose start is being tried again, by run id. */
  readonly #waiting = new Map<string, Promise<void>>();

  constructor(store: RunStore, retry: EngineRetry = ENGINE_RETRY) {
    this.#store = store;
    this.#retry = retry;
  }

  /**
   * Starts `run` on `engine`: 'started' once the engine took it. When it cannot be reached, the
   * run is recorded as waiting for it, the start is tried again in the background until it
   * takes (or the run ends, or this process closes), and this resolves 'waiting' at once.
   */
  async start(engine: RunBackend, run: RunHandOver): Promise<EngineStartOutcome> {
    if (this.#waiting.has(run.runId)) return 'waiting';
    try {
      await engine.start(run);
      return 'started';
    } catch (error) {
      if (this.#closing.signal.aborted) throw error;
      await this.#report(run.runId, {
        type: 'run.engine-unreachable',
        engine: engine.name,
        error: toErrorInfo(error),
      });
      const retrying = this.#retryStart(engine, run).finally(() => this.#waiting.delete(run.runId));
      this.#waiting.set(run.runId, retrying);
      return 'waiting';
    }
  }

  /** The runs waiting for their engine here now. */
  get waiting(): string[] {
    return [...this.#waiting.keys()];
  }

  /** Stops trying: a run still waiting is started again by the next process (RunService.recoverHandOffs). */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled([...this.#waiting.values()]);
  }

  async #retryStart(engine: RunBackend, run: RunHandOver): Promise<void> {
    const { signal } = this.#closing;
    for (let delay = this.#retry.firstDelayMs; ; delay = Math.min(delay * 2, this.#retry.maxDelayMs)) {
      try {
        await abortableDelay(delay, signal);
      } catch {
        return; // closing
      }
      // Cancelled meanwhile, or taken over by another process: nothing to start any more.
      const current = await this.#store.getRun(run.runId).catch(() => undefined);
      if (current && (isFinalStatus(current.status) || current.backend !== engine.name)) return;
      try {
        await engine.start(run);
      } catch {
        continue;
      }
      // Not after the run's end: an engine quick to finish the run has written the last event.
      const now = await this.#store.getRun(run.runId).catch(() => undefined);
      if (!now || !isFinalStatus(now.status))
        await this.#report(run.runId, { type: 'run.engine-reached', engine: engine.name });
      return;
    }
  }

  /** Best effort: a lost note never stops the run from being started. */
  async #report(
    runId: string,
    event:
      | { type: 'run.engine-unreachable'; engine: string; error: ReturnType<typeof toErrorInfo> }
      | {
          type: 'run.engine-reached';
          engine: string;
        },
  ): Promise<void> {
    await this.#store.commit([{ runId, journal: [], events: [event] }]).catch(() => undefined);
  }
}
