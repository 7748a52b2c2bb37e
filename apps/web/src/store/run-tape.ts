/**
 * A run's events as loaded into the editor, and the state after any one of them — the engine's
 * own fold (`applyEvent`), never a second reducer. Moving the scrubber to event k must not fold
 * events 0..k every time: every `every` events the tape keeps a snapshot, so reaching any k
 * folds at most `every` events onto a copy of the snapshot before it.
 *
 * Snapshots share what did not change: a step object is copied into a snapshot only when an
 * event touched it since the previous one, so a 10,000-step run holds its step objects a few
 * times over, not once per snapshot.
 */
import { applyEvent, initialRunState, type RunEvent, type RunState, type StepState } from '@weft/engine';

export const SNAPSHOT_EVERY = 256;

export class RunTape {
  readonly events: RunEvent[] = [];
  readonly every: number;
  /** `snapshots[i]`: the state after the first `i * every` events (frozen: never folded into). */
  readonly #snapshots: RunState[];
  /** The state after every event so far; mutated by the fold, never handed out. */
  #head: RunState = initialRunState();
  /** Steps an event touched since the last snapshot. */
  #touched = new Set<string>();

  constructor(every = SNAPSHOT_EVERY) {
    this.every = every;
    this.#snapshots = [initialRunState()];
  }

  get length(): number {
    return this.events.length;
  }

  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /**
   * Appends events in seq order; ones at or before the last seq are skipped (a stream resumed
   * after a page, a reconnect). Returns how many were added.
   */
  append(events: readonly RunEvent[]): number {
    let added = 0;
    for (const event of events) {
      if (event.seq <= this.lastSeq) continue;
      this.events.push(event);
      applyEvent(this.#head, event);
      if ('stepId' in event) this.#touched.add(event.stepId);
      added++;
      if (this.events.length % this.every === 0) this.#snapshot();
    }
    return added;
  }

  /** The state after `events[index]` (the initial state for -1). A new object: the caller may keep it. */
  stateAt(index: number): RunState {
    const last = Math.min(index, this.events.length - 1);
    const count = last + 1;
    const nearest = Math.max(0, Math.min(Math.floor(count / this.every), this.#snapshots.length - 1));
    const state = thaw(this.#snapshots[nearest]!);
    const copied = new Set<string>();
    for (let at = nearest * this.every; at < count; at++) {
      const event = this.events[at]!;
      // Copy a step before the fold writes to it: the snapshot's object is shared.
      if ('stepId' in event && !copied.has(event.stepId)) {
        copied.add(event.stepId);
        const step = Object.hasOwn(state.steps, event.stepId) ? state.steps[event.stepId] : undefined;
        if (step) state.steps[event.stepId] = { ...step };
      }
      applyEvent(state, event);
    }
    return state;
  }

  /** The index of the last event with seq at or before `seq` (-1 when there is none). */
  indexOfSeq(seq: number): number {
    let low = 0;
    let high = this.events.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.events[middle]!.seq <= seq) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }

  #snapshot(): void {
    const previous = this.#snapshots.at(-1)!;
    const steps: Record<string, StepState> = Object.assign(Object.create(null), previous.steps);
    for (const stepId of this.#touched) {
      const step = Object.hasOwn(this.#head.steps, stepId) ? this.#head.steps[stepId] : undefined;
      if (step) steps[stepId] = Object.freeze({ ...step }) as StepState;
    }
    this.#touched.clear();
    this.#snapshots.push(Object.freeze({ ...this.#head, steps: Object.freeze(steps), order: [...this.#head.order] }));
  }
}

/** A copy of a snapshot the fold may write to (steps are copied on first write by the caller). */
function thaw(snapshot: RunState): RunState {
  return { ...snapshot, steps: Object.assign(Object.create(null), snapshot.steps), order: [...snapshot.order] };
}
