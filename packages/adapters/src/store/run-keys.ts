/**
 * Dedupe keys the SQLite store keeps in memory per run (see sqlite.ts for when they are
 * trusted): one small number per step id with a bit per key kind, whole strings for the rest.
 */
import type { RunEventInput } from '@weft/engine';

/**
 * Keys whose eventKey is `<type>:<stepId>`, and the journal's `journal:<stepId>`: one bit each,
 * so a run keeps one small number per step id instead of a string per key.
 */
const STEP_KEY_BITS = new Map<string, number>(
  [
    'journal',
    'step.started',
    'step.completed',
    'step.failed',
    'approval.requested',
    'approval.resolved',
    'child.started',
  ].map((kind, i) => [kind, 1 << i]),
);

/** Keys whose eventKey is the event's type alone: the run-level events. */
const RUN_KEY_BITS = new Map<string, number>(
  ['run.started', 'run.handed-off', 'run.completed', 'run.failed', 'run.cancelled'].map((kind, i) => [kind, 1 << i]),
);

/**
 * The dedupe keys a run holds. A commit's keys are about `journal:<id>`, `step.started:<id>`,
 * `step.completed:<id>` per step; held as whole strings that is ~3 strings of 30–60 bytes per
 * step, kept for up to KEY_CACHE_RUNS runs. Here they are one map entry per step id (the id
 * string itself is usually shared with the engine) with a bit per kind, and a bit per run-level
 * event; other keys (retries with their attempt, anything eventKey may add) are kept whole.
 */
export class RunKeys {
  readonly #steps = new Map<string, number>();
  /** The run-level keys held (`run.started`, …), a bit each: every run has one or two. */
  #run = 0;
  #other: Set<string> | undefined;

  /** Records `key` (of this `kind` and step); false when the run already held it. */
  add(kind: string, stepId: unknown, key: string): boolean {
    const runBit = key === kind ? (RUN_KEY_BITS.get(key) ?? 0) : 0;
    if (runBit !== 0) {
      if ((this.#run & runBit) !== 0) return false;
      this.#run |= runBit;
      return true;
    }
    const bit = stepBit(kind, stepId, key);
    if (bit === 0) {
      this.#other ??= new Set();
      if (this.#other.has(key)) return false;
      this.#other.add(key);
      return true;
    }
    const held = this.#steps.get(stepId as string) ?? 0;
    if ((held & bit) !== 0) return false;
    this.#steps.set(stepId as string, held | bit);
    return true;
  }

  /** Forgets a key `add` just recorded. */
  remove(kind: string, stepId: unknown, key: string): void {
    const runBit = key === kind ? (RUN_KEY_BITS.get(key) ?? 0) : 0;
    if (runBit !== 0) {
      this.#run &= ~runBit;
      return;
    }
    const bit = stepBit(kind, stepId, key);
    if (bit === 0) this.#other?.delete(key);
    else this.#steps.set(stepId as string, (this.#steps.get(stepId as string) ?? 0) & ~bit);
  }
}

/** The bit of a `<kind>:<stepId>` key, or 0 when `key` has another shape. */
function stepBit(kind: string, stepId: unknown, key: string): number {
  if (typeof stepId !== 'string' || key.length !== kind.length + 1 + stepId.length) return 0;
  return STEP_KEY_BITS.get(kind) ?? 0;
}

export function stepIdOf(event: RunEventInput): unknown {
  return (event as { stepId?: unknown }).stepId;
}
