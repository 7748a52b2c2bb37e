/**
 * Wake-ups for parked runs whose approval times out while this process is alive. The timers do
 * not keep the process up: a process that leaves hands the deadline to the next `recover()`.
 */
import type { RunStore } from '../store/types.ts';

export class DeadlineTimers {
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #store: RunStore;
  readonly #wake: (runId: string) => void;

  constructor(store: RunStore, wake: (runId: string) => void) {
    this.#store = store;
    this.#wake = wake;
  }

  /** Arms (or re-arms) the wake-up of `runId` at its earliest pending approval deadline. */
  async arm(runId: string): Promise<void> {
    const deadlines = (await this.#store.listApprovals({ runId, status: 'pending' }))
      .map((approval) => approval.deadline)
      .filter((deadline): deadline is number => deadline !== null);
    clearTimeout(this.#timers.get(runId));
    this.#timers.delete(runId);
    if (deadlines.length === 0) return;
    const timer = setTimeout(
      () => {
        this.#timers.delete(runId);
        this.#wake(runId);
      },
      Math.max(0, Math.min(...deadlines) - Date.now()),
    );
    timer.unref();
    this.#timers.set(runId, timer);
  }

  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
