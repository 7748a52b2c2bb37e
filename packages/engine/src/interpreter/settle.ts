import { isRunInterrupt } from '../errors.ts';

/**
 * Waits for every branch, then throws the first real failure (in branch order), else the first
 * interrupt. Waiting for all keeps concurrent work deterministic: nothing is left running in
 * the background when a branch parks or fails, and every finished call reaches the journal.
 */
export async function settleAll<T>(work: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  let interrupt: unknown;
  for (const result of settled) {
    if (result.status === 'fulfilled') continue;
    if (!isRunInterrupt(result.reason)) throw result.reason;
    interrupt ??= result.reason;
  }
  if (interrupt !== undefined) throw interrupt;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}
