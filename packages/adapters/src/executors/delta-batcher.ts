/**
 * Coalesces token deltas so a fast model cannot flood the event log: the first delta goes out
 * at once (time to first token matters), later ones at most once per interval, and `flush`
 * sends whatever is left when the turn ends.
 */
export class DeltaBatcher {
  readonly #emit: (text: string) => void;
  readonly #intervalMs: number;
  #pending = '';
  #lastEmit = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(emit: (text: string) => void, intervalMs = 50) {
    this.#emit = emit;
    this.#intervalMs = intervalMs;
  }

  push(text: string): void {
    if (!text) return;
    this.#pending += text;
    const wait = this.#lastEmit + this.#intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#pending) return;
    const text = this.#pending;
    this.#pending = '';
    this.#lastEmit = Date.now();
    try {
      this.#emit(text);
    } catch {
      // Deltas are a best-effort preview, not part of the result; a failing listener must
      // not fail the turn (and from a timer it would crash the process).
    }
  }
}
