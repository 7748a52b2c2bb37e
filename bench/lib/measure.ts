/**
 * Timing and heap helpers. Every measurement is: `warmup` untimed calls (so the JIT, SQLite's
 * page cache and the pools are warm), then `rounds` timed calls, reporting the median, so one
 * GC pause or a noisy neighbour does not decide a row.
 */

export interface Plan {
  /** Untimed calls before the timed ones: at least this many... */
  warmup: number;
  /** ...and for at least this long (the JIT needs a few hundred ms before the agent loop settles). */
  warmupMs: number;
  /** Timed calls; the median is reported. At least this many... */
  rounds: number;
  /** ...and for at least this long, so a run of a few ms is sampled often enough (capped at MAX_ROUNDS). */
  minMs: number;
}

const MAX_ROUNDS = 200;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Warms up, then calls `once` for the timed rounds; returns the median of the values they return. */
export async function sample(plan: Plan, once: () => Promise<number>): Promise<number> {
  let start = performance.now();
  for (let i = 0; i < plan.warmup || performance.now() - start < plan.warmupMs; i++) await once();
  const values: number[] = [];
  start = performance.now();
  while (values.length < plan.rounds || (performance.now() - start < plan.minMs && values.length < MAX_ROUNDS)) {
    values.push(await once());
  }
  return median(values);
}

export interface Paired {
  /** Median of `a`'s values. */
  a: number;
  /** Median of `b`'s values. */
  b: number;
  /** Median of a / b over rounds taken back to back: a disk whose latency drifts over the run moves both sides of each pair alike. */
  ratio: number;
}

/**
 * As `sample`, for two measurements compared by their ratio: rounds alternate a, b, a, b… (after
 * warming up both), so the ratio is not decided by which one ran while the disk was slow.
 */
export async function samplePaired(plan: Plan, a: () => Promise<number>, b: () => Promise<number>): Promise<Paired> {
  let start = performance.now();
  for (let i = 0; i < plan.warmup || performance.now() - start < plan.warmupMs; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  start = performance.now();
  while (as.length < plan.rounds || (performance.now() - start < 2 * plan.minMs && as.length < MAX_ROUNDS)) {
    const first = await a();
    const second = await b();
    as.push(first);
    bs.push(second);
    ratios.push(first / second);
  }
  return { a: median(as), b: median(bs), ratio: median(ratios) };
}

/** Milliseconds `fn` takes. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** A no-op the baselines await, once per step, as the engine awaits its executor. */
export async function noop(_step: number): Promise<null> {
  return null;
}

type Gc = () => void;

function gcFunction(): Gc | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as Gc) : undefined;
}

export function hasGc(): boolean {
  return gcFunction() !== undefined;
}

/**
 * Heap in use after full collections (needs --expose-gc; engine.ts re-runs itself with it).
 * The event loop turns between collections: objects kept alive only until a weak callback or
 * finalizer runs are freed then, and measuring right after a bare gc() swung the per-run
 * figure by ±200 B from round to round.
 */
export async function settledHeap(): Promise<number> {
  return (await settledMemory()).heapUsed;
}

/** process.memoryUsage() after the collections settledHeap makes. */
export async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  const gc = gcFunction();
  if (!gc) throw new Error('global.gc is missing: run node with --expose-gc');
  for (let pass = 0; pass < 3; pass++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  gc();
  return process.memoryUsage();
}
