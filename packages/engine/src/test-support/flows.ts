/** Small builders for engine tests: a validated flow from a list of steps, and async helpers. */
import type { Flow } from '../ir/flow.ts';
import type { ValidationIssue } from '../validate/issues.ts';
import { type ValidateOptions, validateFlow } from '../validate/validate.ts';

/**
 * A flow document around `steps`, validated (with defaults applied) so a test cannot run a
 * flow the editor would refuse. Throws with every issue when it is invalid.
 */
export function testFlow(steps: unknown[], extra: Record<string, unknown> = {}, options: ValidateOptions = {}): Flow {
  const result = validateFlow({ irVersion: 1, id: 'test-flow', name: 'Test flow', steps, ...extra }, options);
  if (!result.ok) {
    throw new Error(`invalid test flow:\n${result.errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`);
  }
  return result.flow;
}

/**
 * The validation issues of a one-step flow (empty when it is valid). The step goes through
 * JSON first, as a stored flow does, so `{ field: undefined }` means the field is absent.
 */
export function stepIssues(step: unknown, options: ValidateOptions = {}): ValidationIssue[] {
  const doc = JSON.parse(JSON.stringify({ irVersion: 1, id: 'test-flow', name: 'Test flow', steps: [step] }));
  const result = validateFlow(doc, options);
  return result.ok ? [] : result.errors;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run (one macrotask turn, several times). */
export async function drain(turns = 5): Promise<void> {
  for (let index = 0; index < turns; index++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Tracks whether a promise has settled, without changing how it settles. */
export function track<T>(promise: Promise<T>): { promise: Promise<T>; readonly settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return {
    promise,
    get settled() {
      return state.settled;
    },
  };
}
