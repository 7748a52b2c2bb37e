/**
 * A queue that takes turns between owners: one line per owner (a run), served round-robin, so a
 * run with one call waiting is served after at most one call of each other waiting run, however
 * many those have queued (a `map` of 1000 items no longer holds every other run's code steps).
 * Within one owner's line the order is first in, first out.
 */
export class FairQueue<T> {
  // A Map iterates in insertion order: its first line is next, and a served line that still
  // holds calls is moved to the back.
  readonly #lines = new Map<string, T[]>();
  #size = 0;

  /** Items waiting, over every owner. */
  get size(): number {
    return this.#size;
  }

  /** Items `owner` has waiting. */
  waiting(owner: string): number {
    return this.#lines.get(owner)?.length ?? 0;
  }

  push(owner: string, item: T): void {
    const line = this.#lines.get(owner);
    if (line) line.push(item);
    else this.#lines.set(owner, [item]);
    this.#size++;
  }

  /** The head of the line whose turn it is; that line goes to the back. */
  shift(): T | undefined {
    for (const [owner, line] of this.#lines) {
      const item = line.shift() as T;
      this.#size--;
      this.#lines.delete(owner);
      if (line.length > 0) this.#lines.set(owner, line);
      return item;
    }
    return undefined;
  }

  /** Takes `item` out of `owner`'s line; false when it is not waiting there. */
  remove(owner: string, item: T): boolean {
    const line = this.#lines.get(owner);
    const index = line?.indexOf(item) ?? -1;
    if (!line || index < 0) return false;
    line.splice(index, 1);
    this.#size--;
    if (line.length === 0) this.#lines.delete(owner);
    return true;
  }

  /** Empties the queue, returning what waited, line by line. */
  drain(): T[] {
    const all = [...this.#lines.values()].flat();
    this.#lines.clear();
    this.#size = 0;
    return all;
  }
}
