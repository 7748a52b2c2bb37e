import type { RunEvent } from '@weft/engine';

/**
 * Merges consecutive `step.delta` events of the same step into one: the texts joined, the last
 * one's seq and time. Seqs stay increasing, so a client resuming from a merged event's seq
 * misses nothing.
 */
export function coalesceDeltas(events: readonly RunEvent[]): RunEvent[] {
  const out: RunEvent[] = [];
  for (const event of events) {
    const previous = out.at(-1);
    if (
      event.type === 'step.delta' &&
      previous?.type === 'step.delta' &&
      previous.stepId === event.stepId &&
      previous.runId === event.runId
    ) {
      out[out.length - 1] = { ...event, text: previous.text + event.text };
    } else {
      out.push(event);
    }
  }
  return out;
}
