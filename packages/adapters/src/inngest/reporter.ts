/**
 * Run events from an Inngest function. Inngest re-runs the handler from the top for every
 * step, so the interpreter re-emits everything before the step at hand: events are buffered,
 * and a flush writes only those whose key this process has not stored yet (the store dedupes
 * by eventKey as well, which covers another process or a restart). Keyless events (token
 * deltas) are only emitted while a call really executes, so they are written as they come.
 */
import { eventKey, type RunEventInput } from '@weft/engine';
import { reportRunEvents } from '../store/report-events.ts';
import type { RunStore } from '../store/types.ts';

/** How many runs' keys a process remembers; an evicted run only costs one deduped re-write. */
const REMEMBERED_RUNS = 2_000;
const storedKeys = new Map<string, Set<string>>();

function keysOf(runId: string): Set<string> {
  let keys = storedKeys.get(runId);
  if (keys) {
    storedKeys.delete(runId);
  } else {
    keys = new Set();
    if (storedKeys.size >= REMEMBERED_RUNS) storedKeys.delete(storedKeys.keys().next().value as string);
  }
  storedKeys.set(runId, keys);
  return keys;
}

export class RunReporter {
  #buffer: RunEventInput[] = [];
  #written: Promise<void> = Promise.resolve();
  readonly #keys: Set<string>;
  readonly store: RunStore;
  readonly runId: string;

  constructor(store: RunStore, runId: string) {
    this.store = store;
    this.runId = runId;
    this.#keys = keysOf(runId);
  }

  emit(event: RunEventInput): void {
    const key = eventKey(event);
    if (key !== null && this.#keys.has(key)) return;
    this.#buffer.push(event);
  }

  /** Writes what is buffered, after every earlier write (the store numbers events in this order). */
  flush(): Promise<void> {
    if (this.#buffer.length > 0) {
      const batch = this.#buffer;
      this.#buffer = [];
      this.#written = this.#written.then(async () => {
        await reportRunEvents(this.store, this.runId, batch);
        for (const event of batch) {
          const key = eventKey(event);
          if (key !== null) this.#keys.add(key);
        }
      });
    }
    return this.#written;
  }

  /** Forgets the run's keys (it ended: nothing will replay it here). */
  forget(): void {
    storedKeys.delete(this.runId);
  }
}
