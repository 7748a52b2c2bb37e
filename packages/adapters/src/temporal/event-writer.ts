/**
 * How the generic workflow writes a run's events into Weft's store: in the order the interpreter
 * emitted them, each stored before anything that waits on it, and with as few workflow-task round
 * trips as that allows (workflow code: deterministic, no Node API, no clock).
 *
 * Two ways to write:
 * - a call's activity carries what is buffered and writes it before it runs the call (so a
 *   step's `step.started` is stored before its retries and deltas). A run of sequential steps
 *   writes every event this way: no local activity, one workflow task per step, as in a
 *   hand-written workflow. Only one call carries at a time.
 * - otherwise (a wait, a second concurrent call, the end) a local activity writes everything not
 *   yet known stored. Writes asked for while one is queued join it: a 64-wide fan-out writes its
 *   `step.started` events in one or two local activities, not 64 in a row.
 *
 * Why the order holds: every write holds, in emission order, every event not yet known stored
 * that was emitted before its newest one (a local activity also rewrites what an in-flight call
 * carries), and the store appends only events whose `eventKey` it has not seen. So whichever write
 * lands first, an event is appended after everything emitted before it. A call that fails hands
 * what it carried back to the next write: its activity may never have run.
 */
import type { RunEventInput } from '@weft/engine';

/**
 * Carried events are part of the activity's input, which Temporal keeps in the history (a local
 * activity's input it does not): a batch larger than this (a big step output in its
 * `step.completed`) is written by a local activity instead, so the history does not hold it twice.
 */
const MAX_CARRIED_CHARS = 64 * 1024;

export class EventWriter {
  readonly #write: (events: RunEventInput[]) => Promise<void>;
  /** Histories recorded before carrying and joining: one local activity per flush, in a row. */
  readonly #legacy: boolean;
  /** Emitted, handed to no write yet. */
  #buffer: RunEventInput[] = [];
  /** The buffer's size as JSON text, kept as events are pushed (not re-measured per call). */
  #bufferChars = 0;
  /** Handed to the call in flight, not known stored (no local activity has taken them since). */
  #carried: RunEventInput[] = [];
  #carrying = false;
  /** Local-activity writes queued or running. */
  #writes = 0;
  #written: Promise<void> = Promise.resolve();
  /** The write queued behind `#written`, not started yet: it takes what is unwritten when it starts. */
  #next: Promise<void> | undefined;

  constructor(write: (events: RunEventInput[]) => Promise<void>, options: { legacy: boolean }) {
    this.#write = write;
    this.#legacy = options.legacy;
  }

  push(event: RunEventInput): void {
    this.#buffer.push(event);
    this.#bufferChars += JSON.stringify(event).length + 1;
  }

  /** Resolves once every event pushed so far is stored. */
  flush(): Promise<void> {
    if (this.#legacy) {
      if (this.#buffer.length === 0) return this.#written;
      const batch = this.#take();
      this.#written = this.#written.then(() => this.#write(batch));
      return this.#written;
    }
    if (this.#buffer.length === 0 && this.#carried.length === 0) return this.#written;
    if (this.#next) return this.#next;
    this.#writes++;
    const next = this.#written
      .then(() => {
        this.#next = undefined;
        const batch = this.#take();
        return batch.length > 0 ? this.#write(batch) : undefined;
      })
      .finally(() => {
        this.#writes--;
      });
    this.#next = next;
    this.#written = next;
    return next;
  }

  /**
   * Runs a call's activity (`execute`), handing it the events it must write before the call when
   * it can carry them; otherwise writes them first. Settles as the activity does. (Promise chains,
   * not async functions: the workflow sandbox records a stack trace for every promise.)
   */
  call<T>(execute: (events: RunEventInput[] | undefined) => Promise<T>): Promise<T> {
    if (this.#legacy || this.#carrying || this.#writes > 0 || this.#bufferChars > MAX_CARRIED_CHARS)
      return this.flush().then(() => execute(undefined));
    const mineChars = this.#bufferChars;
    const mine = this.#take();
    this.#carried = mine;
    this.#carrying = true;
    const settle = (stored: boolean) => {
      this.#carrying = false;
      if (this.#carried !== mine) return;
      this.#carried = [];
      if (stored) return;
      this.#buffer = [...mine, ...this.#buffer];
      this.#bufferChars += mineChars;
    };
    return execute(mine.length > 0 ? mine : undefined).then(
      (result) => {
        settle(true);
        return result;
      },
      (error: unknown) => {
        settle(false);
        throw error;
      },
    );
  }

  /** Every event not yet stored, for the run's last write, once the writes before it are done. */
  async rest(): Promise<RunEventInput[]> {
    await this.#written;
    return this.#take();
  }

  #take(): RunEventInput[] {
    const batch = this.#carried.length > 0 ? [...this.#carried, ...this.#buffer] : this.#buffer;
    this.#carried = [];
    this.#buffer = [];
    this.#bufferChars = 0;
    return batch;
  }
}
