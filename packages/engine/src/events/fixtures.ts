/**
 * Fixtures from a run's event log: every model turn the run took, in the form `interpret`
 * accepts as `fixtures`, so any past run can be re-run offline, exactly, as a regression test.
 *
 * A model turn is a `model-turn` sub-step (`agent/llm#2`, parentId `agent`) whose
 * `step.completed` output is a ModelTurnOutput. Turns are keyed by the full path of their
 * `llm` step (`each[2]/agent`), which is what the interpreter looks up first, and ordered by
 * their turn number. A turn that never completed (a failed provider call) is left out: a
 * re-run calls the provider for it again.
 */
import type { Fixtures, FixtureTurn, TokenUsage } from '../interpreter/host.ts';
import { isJsonObject, type Json } from '../json.ts';
import type { RunEvent, RunEventInput } from './events.ts';

const TURN_ID = /^(.*)\/llm#(\d+)$/;

export function fixturesFromEvents(events: readonly (RunEvent | RunEventInput)[]): Fixtures {
  /** Step id → its type and parent, from `step.started`. */
  const started = new Map<string, { stepType: string; parentId: string | undefined }>();
  for (const event of events) {
    if (event.type === 'step.started')
      started.set(event.stepId, { stepType: event.stepType, parentId: event.parentId });
  }
  const turns = new Map<string, { turn: number; fixture: FixtureTurn }[]>();
  for (const event of events) {
    if (event.type !== 'step.completed') continue;
    const match = TURN_ID.exec(event.stepId);
    if (!match) continue;
    // A step.started names the type and parent authoritatively; the id pattern is the fallback.
    const start = started.get(event.stepId);
    if (start && start.stepType !== 'model-turn') continue;
    const parent = start?.parentId ?? match[1]!;
    const fixture = fixtureTurn(event.output);
    if (!fixture) continue;
    const list = turns.get(parent) ?? [];
    list.push({ turn: Number(match[2]), fixture });
    turns.set(parent, list);
  }
  const fixtures: Fixtures = {};
  for (const [parent, list] of turns) {
    fixtures[parent] = list.sort((a, b) => a.turn - b.turn).map((entry) => entry.fixture);
  }
  return fixtures;
}

/** A ModelTurnOutput reduced to what a fixture holds; undefined when it is not one. */
function fixtureTurn(output: Json): FixtureTurn | undefined {
  if (!isJsonObject(output)) return undefined;
  const fixture: FixtureTurn = {};
  if (typeof output.text === 'string' && output.text !== '') fixture.text = output.text;
  if (Array.isArray(output.toolCalls) && output.toolCalls.length > 0) {
    fixture.toolCalls = output.toolCalls.filter(isJsonObject).map((call) => ({
      tool: String(call.tool),
      args: call.args ?? {},
    }));
  }
  if (output.object !== undefined) fixture.object = output.object;
  const usage = tokenUsage(output.usage);
  if (usage) fixture.usage = usage;
  return fixture;
}

function tokenUsage(value: Json | undefined): TokenUsage | undefined {
  if (!isJsonObject(value)) return undefined;
  const { inputTokens, outputTokens, totalTokens } = value;
  if (typeof inputTokens !== 'number' || typeof outputTokens !== 'number') return undefined;
  if (inputTokens === 0 && outputTokens === 0) return undefined;
  return {
    inputTokens,
    outputTokens,
    totalTokens: typeof totalTokens === 'number' ? totalTokens : inputTokens + outputTokens,
  };
}
