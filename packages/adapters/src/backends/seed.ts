/**
 * A run's seed: recorded results (from a past run, or a saved test case) that may answer its
 * calls instead of executing them. Unlike the run's own journal — which must match, or the flow
 * changed under the run — a seed answers only a call made with exactly the recorded input (its
 * input hash); any other call runs live. So a replay with an edited input or onto a newer flow
 * version reuses what still holds and executes the rest, on every backend alike.
 *
 * A seed is kept in the run's journal under its own ids (`@seed:<checkpoint>`): it survives a
 * crash like the rest of the journal, and a live result for the same checkpoint (stored under the
 * checkpoint's own id) never collides with it. Every engine's host asks `seedAnswer`, and marks
 * `step.completed` / `step.failed` of a checkpoint so answered as `reused`.
 */
import {
  type ApprovalOutcome,
  type ErrorInfo,
  type FlowRef,
  formatFlowRef,
  hashValue,
  isJsonObject,
  type Json,
  type RunEventInput,
} from '@weft/engine';
import type { JournalEntry } from '../store/types.ts';

const SEED_PREFIX = '@seed:';

/** Between a spawn step and a checkpoint of the child run it starts: `each[1]/summarize>count`. */
export const CHILD_SEPARATOR = '>';

/** A seed entry holding an approval's decision (output: approved, by, comment, timedOut, at). */
export const APPROVAL_KIND = 'approval';

/** The seed as the journal keeps it. */
export function seedEntries(seed: readonly JournalEntry[]): JournalEntry[] {
  return seed.map((entry) => ({ ...entry, stepId: `${SEED_PREFIX}${entry.stepId}` }));
}

/** A run's stored journal split into its own results and its seed, each by checkpoint id. */
export function splitJournal(entries: readonly JournalEntry[]): {
  journal: Map<string, JournalEntry>;
  seed: Map<string, JournalEntry>;
} {
  const journal = new Map<string, JournalEntry>();
  const seed = new Map<string, JournalEntry>();
  for (const entry of entries) {
    if (entry.stepId.startsWith(SEED_PREFIX)) {
      const stepId = entry.stepId.slice(SEED_PREFIX.length);
      seed.set(stepId, { ...entry, stepId });
    } else journal.set(entry.stepId, entry);
  }
  return { journal, seed };
}

/**
 * What a run's calls were answered with, whether executed or reused from its seed, in journal
 * order: what a replay of this run, or a test case saved from it, starts from. A seed entry
 * whose checkpoint the run executed itself (its input differed) gives way to the run's result;
 * one the run never asked for is left out when `asked` says which checkpoints it asked for.
 */
export function recordedResults(entries: readonly JournalEntry[], asked?: ReadonlySet<string>): JournalEntry[] {
  const { journal, seed } = splitJournal(entries);
  const results = [...journal.values()];
  for (const [stepId, entry] of seed)
    if (!journal.has(stepId) && (asked === undefined || asked.has(stepId))) results.push(entry);
  return results;
}

/** The seed's answer to a call with this input hash (computed only if needed), or undefined: run the call live. */
export function seedAnswer(
  seed: ReadonlyMap<string, JournalEntry>,
  stepId: string,
  inputHash: () => string,
): JournalEntry | undefined {
  const entry = seed.get(stepId);
  // Hashed only for a step the seed holds: every replay asks for every earlier call again, and
  // most runs have no seed at all.
  return entry !== undefined && entry.inputHash === inputHash() ? entry : undefined;
}

/** The input hash of a sleep as the in-process journal keeps it (its output: `{ until }`). */
export function sleepHash(ms: number): string {
  return `sleep:${ms}`;
}

/**
 * When a sleep the seed holds ends (ISO time), or undefined: sleep live. A hand-off's seed
 * carries the sleeps that ran in-process, each with its wake-up time, so the engine sleeps only
 * what is left of it (nothing, for one that finished) instead of the whole duration again.
 */
export function seedSleepUntil(
  seed: ReadonlyMap<string, JournalEntry>,
  stepId: string,
  ms: number,
): string | undefined {
  const entry = seedAnswer(seed, stepId, () => sleepHash(ms));
  const until = entry?.status === 'completed' && isJsonObject(entry.output) ? entry.output.until : undefined;
  return typeof until === 'string' && !Number.isNaN(Date.parse(until)) ? until : undefined;
}

/** The part of a run's seed meant for the child run that `spawnStepId` starts, as the child's own seed. */
export function childSeed(seed: ReadonlyMap<string, JournalEntry>, spawnStepId: string): JournalEntry[] {
  const prefix = `${spawnStepId}${CHILD_SEPARATOR}`;
  const entries: JournalEntry[] = [];
  for (const [stepId, entry] of seed)
    if (stepId.startsWith(prefix)) entries.push({ ...entry, stepId: stepId.slice(prefix.length) });
  return entries;
}

/** The input hash of a child run's start (a `spawn` step or a flow tool): the flow and its input. */
export function spawnHash(ref: FlowRef, input: Json): string {
  return `spawn:${formatFlowRef(ref)}:${hashValue(input)}`;
}

/**
 * A child run's result as its parent's journal keeps it: the engines that run children as their
 * own workflows (Temporal, Inngest) journal it too, so a replay or a test case can answer the
 * child from it without running it again.
 */
export function spawnEntry(
  stepId: string,
  ref: FlowRef,
  input: Json,
  result: { ok: true; value: Json } | { ok: false; error: ErrorInfo },
): JournalEntry {
  return {
    stepId,
    kind: 'spawn',
    inputHash: spawnHash(ref, input),
    status: result.ok ? 'completed' : 'failed',
    output: result.ok ? result.value : null,
    error: result.ok ? null : result.error,
  };
}

/** The value a seed entry answers with, or the failure it rethrows (as `rehydrate` builds it). */
export function seedValue(entry: JournalEntry, rehydrate: (error: ErrorInfo) => Error): Json {
  if (entry.status === 'completed') return entry.output as Json;
  throw rehydrate(entry.error ?? { name: 'Error', message: `step '${entry.stepId}' failed` });
}

/** The decision a seed gives an approval, or undefined: ask for one. */
export function seedDecision(seed: ReadonlyMap<string, JournalEntry>, stepId: string): ApprovalOutcome | undefined {
  const entry = seed.get(stepId);
  if (entry?.kind !== APPROVAL_KIND || !isJsonObject(entry.output)) return undefined;
  const { approved, by, comment, timedOut, at } = entry.output;
  const when = typeof at === 'string' ? at : new Date(0).toISOString();
  if (timedOut === true) return { kind: 'timed-out', at: when };
  return {
    kind: 'decided',
    approved: approved === true,
    by: typeof by === 'string' ? by : null,
    comment: typeof comment === 'string' ? comment : null,
    at: when,
  };
}

/**
 * What a host writes of an event given the seed: the end event of a checkpoint the seed answered
 * is marked `reused`, and the request of an approval the seed decides is not written (nobody is
 * asked; its `approval.resolved` follows at once).
 */
export function seededEvent(
  event: RunEventInput,
  seed: ReadonlyMap<string, JournalEntry>,
  reused: ReadonlySet<string>,
): RunEventInput | undefined {
  if (event.type === 'approval.requested' && seedDecision(seed, event.stepId)) return undefined;
  return markReused(event, reused);
}

/** Marks the end event of a checkpoint the seed answered: `reused`, not executed. */
export function markReused(event: RunEventInput, reused: ReadonlySet<string>): RunEventInput {
  if ((event.type === 'step.completed' || event.type === 'step.failed') && reused.has(event.stepId))
    return { ...event, reused: true };
  return event;
}
