import { WeftError } from '@weft/engine';

export class StepTimeoutError extends WeftError {
  override readonly code = 'timeout';
}

/** Rejects when `ms` passes even if the work ignores its abort signal. */
export function withTimeout<T>(work: Promise<T>, ms: number | undefined, stepId: string): Promise<T> {
  // Not async: a step without a timeout (most) costs no extra promise and turn.
  return ms === undefined ? work : raceTimeout(work, ms, stepId);
}

async function raceTimeout<T>(work: Promise<T>, ms: number, stepId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StepTimeoutError(`step '${stepId}' timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A delay that ends early (rejecting) when the signal aborts. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles like `work`, but rejects as soon as `signal` aborts: a cancelled run must not wait
 * for a tool that ignores its abort signal. One listener per signal serves every call raced
 * against it (a run's calls share its signal): adding and removing an EventTarget listener
 * per call cost more than the rest of a no-op step's bookkeeping.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {}); // abandoned: its failure must not surface as an unhandled rejection
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const waiting = waitersOf(signal);
    waiting.add(reject);
    work.then(
      (value) => {
        waiting.delete(reject);
        resolve(value);
      },
      (error: unknown) => {
        waiting.delete(reject);
        reject(error);
      },
    );
  });
}

const abortWaiters = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function waitersOf(signal: AbortSignal): Set<(reason: unknown) => void> {
  let waiting = abortWaiters.get(signal);
  if (!waiting) {
    const set = new Set<(reason: unknown) => void>();
    signal.addEventListener(
      'abort',
      () => {
        for (const reject of set) reject(signal.reason);
        set.clear();
      },
      { once: true },
    );
    abortWaiters.set(signal, set);
    waiting = set;
  }
  return waiting;
}
