/**
 * Replay from a checkpoint of a past run: which of its recorded results a new run may answer
 * from instead of executing them again. A result is reused when its checkpoint completed (or
 * failed) before the chosen checkpoint started, in the source run's event order, and the gate
 * (replay-gate.ts: steps asked to run live, a newer flow version) lets it; the chosen checkpoint
 * and everything after it run again, unless pinned to a given value. Reused are the calls every
 * backend answers from a seed (model turns, tool calls, code, http, child runs) and, unless the
 * user asks again, approval decisions; sleeps run again.
 */
import { type Flow, isJsonObject, type Json, type RunEvent } from '@weft/engine';
import { APPROVAL_KIND, recordedResults } from '../backends/seed.ts';
import { pinnedTurn, quotedKey } from '../executors/turn-shape.ts';
import type { JournalEntry } from '../store/types.ts';
import { replayGate } from './replay-gate.ts';

const CALL_KINDS: ReadonlySet<string> = new Set(['model-turn', 'tool', 'code', 'http', 'spawn']);

export interface ReplayOptions {
  /** The checkpoint to run again from. */
  from: string;
  /** Checkpoints answered with these values instead of being executed. */
  pins?: Readonly<Record<string, Json>> | undefined;
  /** Steps (or checkpoints) to execute again although they completed before the point. */
  live?: readonly string[] | undefined;
  /** Decisions made before the point: given again (default), or asked again. */
  approvals?: 'reuse' | 'ask' | undefined;
  /** Replaying onto another version of the flow than the source ran. */
  versions?: { source: Flow; target: Flow } | undefined;
}

export interface ReplayPlan {
  /** The journal the new run starts with. */
  seed: JournalEntry[];
  /** Checkpoints answered from the source run's journal, in its order. */
  reused: string[];
  /** Checkpoints answered with a value given for the replay. */
  pinned: string[];
  /** Approvals decided before the point whose decision is given again. */
  approvals: { stepId: string; approved: boolean; by: string | null; timedOut: boolean }[];
  /** Checkpoints that completed before the point but run again, each with why. */
  notReused: { checkpoint: string; reason: string }[];
  /** Steps of the source run from the point on that will run again (not pinned), in its order. */
  rerun: string[];
  /**
   * Of those (and of the checkpoints not reused), the ones with effects outside the run that will
   * fire again: http other than GET/HEAD, tools (an agent's tool calls too), code, child runs.
   * A caller confirms these.
   */
  sideEffects: { stepId: string; stepType: string }[];
  /** Tokens the reused model turns cost the source run, which the replay does not spend again. */
  tokensSaved: { input: number; output: number };
}

/** Step types whose execution may change the world outside the run. */
const SIDE_EFFECT_TYPES: ReadonlySet<string> = new Set(['http', 'tool', 'tool-call', 'code', 'spawn']);
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** The checkpoint id names nothing that started in the source run. */
export class UnknownCheckpointError extends Error {
  constructor(what: string, checkpoint: string, known: readonly string[]) {
    const some = known.slice(0, 12).join(', ');
    super(
      `${what}: run has no checkpoint '${checkpoint}'${some ? `; it has: ${some}${known.length > 12 ? ', …' : ''}` : ''}`,
    );
    this.name = 'UnknownCheckpointError';
  }
}

export function planReplay(
  stored: readonly JournalEntry[],
  events: readonly RunEvent[],
  options: ReplayOptions,
): ReplayPlan {
  const { from } = options;
  // By checkpoint id in a Map: a step may be called `toString` or `valueOf`, which `in` on a
  // plain object finds on Object.prototype (such a step was neither reused nor listed as
  // running again, so its side effect fired again unconfirmed).
  const pins = new Map(Object.entries(options.pins ?? {}));
  const started = new Map<string, number>();
  const ended = new Map<string, number>();
  const types = new Map<string, { stepType: string; method: string | undefined }>();
  const decided: RunEvent[] = [];
  for (const event of events) {
    if (event.type === 'step.started' && !started.has(event.stepId)) {
      started.set(event.stepId, event.seq);
      const method =
        isJsonObject(event.input) && typeof event.input.method === 'string' ? event.input.method : undefined;
      types.set(event.stepId, { stepType: event.stepType, method });
    }
    if ((event.type === 'step.completed' || event.type === 'step.failed') && !ended.has(event.stepId))
      ended.set(event.stepId, event.seq);
    if (event.type === 'approval.resolved') decided.push(event);
  }
  const point = started.get(from);
  if (point === undefined) throw new UnknownCheckpointError('from', from, [...started.keys()]);
  const gate = replayGate(options);
  // What the source answered each call with, executed or itself reused (a replay of a replay).
  const journal = recordedResults(stored, new Set(started.keys()));
  const recorded = new Map(journal.map((entry) => [entry.stepId, entry]));
  const seed: JournalEntry[] = [];
  const reused: string[] = [];
  const notReused: ReplayPlan['notReused'] = [];
  for (const entry of journal) {
    const end = ended.get(entry.stepId);
    if (!CALL_KINDS.has(entry.kind) || end === undefined || end >= point || pins.has(entry.stepId)) continue;
    const reason = gate.excludes(entry.stepId);
    if (reason) {
      notReused.push({ checkpoint: entry.stepId, reason });
      continue;
    }
    seed.push(entry);
    reused.push(entry.stepId);
  }
  const pinned: string[] = [];
  for (const [stepId, output] of pins) {
    const entry = recorded.get(stepId);
    // The pin answers the same call (its input hash) the source run made there.
    if (!entry || !CALL_KINDS.has(entry.kind))
      throw new UnknownCheckpointError(
        `pin`,
        stepId,
        journal.filter((e) => CALL_KINDS.has(e.kind)).map((e) => e.stepId),
      );
    seed.push({ ...entry, status: 'completed', output: pinnedOutput(entry.kind, stepId, output), error: null });
    pinned.push(stepId);
  }
  const approvals: ReplayPlan['approvals'] = [];
  if (options.approvals !== 'ask')
    for (const event of decided) {
      if (event.type !== 'approval.resolved' || event.seq >= point || gate.excludes(event.stepId)) continue;
      approvals.push({ stepId: event.stepId, approved: event.approved, by: event.by, timedOut: event.timedOut });
      seed.push({
        stepId: event.stepId,
        kind: APPROVAL_KIND,
        inputHash: APPROVAL_KIND,
        status: 'completed',
        output: {
          approved: event.approved,
          by: event.by,
          comment: event.comment,
          timedOut: event.timedOut,
          at: new Date(event.at).toISOString(),
        },
        error: null,
      });
    }
  const runAgain = new Set(notReused.map((item) => item.checkpoint));
  const rerun = [...started]
    .filter(([stepId, seq]) => (seq >= point || runAgain.has(stepId)) && !pins.has(stepId))
    .sort((a, b) => a[1] - b[1])
    .map(([stepId]) => stepId);
  const sideEffects = rerun.flatMap((stepId) => {
    const type = types.get(stepId);
    if (!type || !SIDE_EFFECT_TYPES.has(type.stepType)) return [];
    if (type.stepType === 'http' && SAFE_METHODS.has((type.method ?? 'GET').toUpperCase())) return [];
    return [{ stepId, stepType: type.stepType }];
  });
  const tokensSaved = { input: 0, output: 0 };
  for (const entry of seed) {
    if (entry.kind !== 'model-turn' || pinned.includes(entry.stepId) || !isJsonObject(entry.output)) continue;
    const usage = entry.output.usage;
    if (!isJsonObject(usage)) continue;
    tokensSaved.input += typeof usage.inputTokens === 'number' ? usage.inputTokens : 0;
    tokensSaved.output += typeof usage.outputTokens === 'number' ? usage.outputTokens : 0;
  }
  return { seed, reused, pinned, approvals, notReused, rerun, sideEffects, tokensSaved };
}

/**
 * A pinned value as the checkpoint's result. A model turn may be pinned as its text, or as a
 * fixture turn (`{ text?, toolCalls?: [{ tool, args }], object? }`), which becomes a whole turn
 * the way a recorded one does; a turn given whole (with its responseMessages) stays as it is.
 * A malformed one is refused here, naming the field (TurnShapeError). Other calls take the value
 * as it is.
 */
function pinnedOutput(kind: string, stepId: string, value: Json): Json {
  if (kind !== 'model-turn') return value;
  const turn = Number(/#(\d+)$/.exec(stepId)?.[1] ?? 1);
  return pinnedTurn(value, { field: `pins${quotedKey(stepId)}`, turn });
}
