/**
 * Replay from a checkpoint of a past run: which of its journaled results a new run may answer
 * from instead of executing them again. A result is reused when its checkpoint completed (or
 * failed) before the chosen checkpoint started, in the source run's event order; the chosen
 * checkpoint and everything after it run again, unless pinned to a given value. Only call
 * results are reused (model turns, tool calls, code, http): those are what every backend
 * answers from a seed; approvals are asked again, sleeps and child runs run again.
 */
import { type FixtureTurn, isJsonObject, type Json, type RunEvent } from '@weft/engine';
import { turnFromFixture } from '../executors/fixture-turn.ts';
import type { JournalEntry } from '../store/types.ts';

const CALL_KINDS: ReadonlySet<string> = new Set(['model-turn', 'tool', 'code', 'http']);

export interface ReplayPlan {
  /** The journal the new run starts with. */
  seed: JournalEntry[];
  /** Checkpoints answered from the source run's journal, in its order. */
  reused: string[];
  /** Checkpoints answered with a value given for the replay. */
  pinned: string[];
  /** Steps of the source run from the point on that will run again (not pinned), in its order. */
  rerun: string[];
  /**
   * Of those, the ones with effects outside the run that will fire again: http other than
   * GET/HEAD, tools (an agent's tool calls too), code, child runs. A caller confirms these.
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
  journal: readonly JournalEntry[],
  events: readonly RunEvent[],
  from: string,
  pins: Readonly<Record<string, Json>> = {},
): ReplayPlan {
  const started = new Map<string, number>();
  const ended = new Map<string, number>();
  const types = new Map<string, { stepType: string; method: string | undefined }>();
  for (const event of events) {
    if (event.type === 'step.started' && !started.has(event.stepId)) {
      started.set(event.stepId, event.seq);
      const method =
        isJsonObject(event.input) && typeof event.input.method === 'string' ? event.input.method : undefined;
      types.set(event.stepId, { stepType: event.stepType, method });
    }
    if ((event.type === 'step.completed' || event.type === 'step.failed') && !ended.has(event.stepId))
      ended.set(event.stepId, event.seq);
  }
  const point = started.get(from);
  if (point === undefined) throw new UnknownCheckpointError('from', from, [...started.keys()]);
  const recorded = new Map(journal.map((entry) => [entry.stepId, entry]));
  const seed: JournalEntry[] = [];
  const reused: string[] = [];
  for (const entry of journal) {
    const end = ended.get(entry.stepId);
    if (!CALL_KINDS.has(entry.kind) || end === undefined || end >= point || entry.stepId in pins) continue;
    seed.push(entry);
    reused.push(entry.stepId);
  }
  const pinned: string[] = [];
  for (const [stepId, output] of Object.entries(pins)) {
    const entry = recorded.get(stepId);
    // The pin answers the same call (its input hash) the source run made there.
    if (!entry || !CALL_KINDS.has(entry.kind))
      throw new UnknownCheckpointError(
        `pin`,
        stepId,
        [...recorded.values()].filter((e) => CALL_KINDS.has(e.kind)).map((e) => e.stepId),
      );
    seed.push({ ...entry, status: 'completed', output: pinnedOutput(entry.kind, stepId, output), error: null });
    pinned.push(stepId);
  }
  const rerun = [...started]
    .filter(([stepId, seq]) => seq >= point && !(stepId in pins))
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
  return { seed, reused, pinned, rerun, sideEffects, tokensSaved };
}

/**
 * A pinned value as the checkpoint's result. A model turn may be pinned as its text, or as a
 * fixture turn (`{ text?, toolCalls?: [{ tool, args }], object? }`), which becomes a whole turn
 * the way a recorded one does; a turn given whole (with its responseMessages) stays as it is.
 * Other calls take the value as it is.
 */
function pinnedOutput(kind: string, stepId: string, value: Json): Json {
  if (kind !== 'model-turn' || (isJsonObject(value) && Array.isArray(value.responseMessages))) return value;
  const fixture = (typeof value === 'string' ? { text: value } : value) as FixtureTurn;
  const turn = Number(/#(\d+)$/.exec(stepId)?.[1] ?? 1);
  return turnFromFixture(fixture, { where: `pin: '${stepId}'`, turn }) as unknown as Json;
}
