/**
 * Model-turn tokens as the store counts them at commit, so that a list of runs shows tokens and
 * cost without reading any run's events. Only a model turn's `step.completed` carries `usage`
 * (llm.ts), and a turn's id is `<llm step path>/llm#<n>`; its model is the one its llm step's
 * `step.started` input names. Also what pricing.ts reads per turn, so that the list's totals
 * and a run's cost breakdown classify turns the same way.
 */
import { isJsonObject, type Json, ownEntry, type RunEventInput, type TokenUsage } from '@weft/engine';
import type { FreeReason, ModelUsage } from './types.ts';

/** What a model is called when its llm step's `step.started` cannot be found (as turnsOf says). */
export const UNKNOWN_MODEL = 'unknown';

const TURN_ID = /^(.+)\/llm#(\d+)$/;

/** A model turn completed in a commit. */
export interface CompletedTurn {
  /** `<llm step path>/llm#<n>`. */
  stepId: string;
  /** The llm step's full path: the turn's parent. */
  llmStepId: string;
  turn: number;
  usage: TokenUsage;
  reused: boolean;
}

/** The model turns among events: each `step.completed` with `usage` whose id names a turn. */
export function completedTurns(events: readonly RunEventInput[]): CompletedTurn[] {
  const turns: CompletedTurn[] = [];
  for (const event of events) {
    if (event.type !== 'step.completed' || event.usage === undefined) continue;
    const match = TURN_ID.exec(event.stepId);
    if (!match) continue;
    turns.push({
      stepId: event.stepId,
      llmStepId: match[1]!,
      turn: Number(match[2]),
      usage: event.usage,
      reused: event.reused === true,
    });
  }
  return turns;
}

/** Whether any event completes a model turn (a commit that must also count tokens). */
export function hasTurnUsage(events: readonly RunEventInput[]): boolean {
  return events.some((event) => event.type === 'step.completed' && event.usage !== undefined);
}

/** The model a `step.started` names in its input (an llm step's), or undefined. */
export function startedModel(event: RunEventInput): string | undefined {
  if (event.type !== 'step.started' || !isJsonObject(event.input ?? null)) return undefined;
  const model = (event.input as { model?: unknown }).model;
  return typeof model === 'string' ? model : undefined;
}

/**
 * Whether the run's fixtures answered turn `turn` of the llm step at `llmStepId`: they are
 * looked up by full path, then by the step's own id (the last path segment), as llm.ts does,
 * and hold one recorded answer per turn.
 */
export function isFixtureTurn(fixtures: Json | null, llmStepId: string, turn: number): boolean {
  if (!isJsonObject(fixtures)) return false;
  const own = llmStepId.slice(llmStepId.lastIndexOf('/') + 1);
  const recorded = ownEntry(fixtures, llmStepId) ?? ownEntry(fixtures, own);
  return Array.isArray(recorded) && recorded.length >= turn;
}

/**
 * Why a turn costs nothing, or null when it is paid. A mock model never costs; a reused turn was
 * paid by the run it came from; a fixture turn never reached a provider.
 */
export function freeReason(model: string, turn: { reused: boolean; fixture: boolean }): FreeReason | null {
  if (model.startsWith('mock:')) return 'mock';
  if (turn.reused) return 'reused';
  if (turn.fixture) return 'fixture';
  return null;
}

/** Turns summed per (model, reason to be free), in first-seen order. */
export function sumUsage(
  turns: readonly { model: string; free: FreeReason | null; inputTokens: number; outputTokens: number }[],
): ModelUsage[] {
  const rows = new Map<string, ModelUsage>();
  for (const turn of turns) {
    const key = `${turn.model}\u0000${turn.free ?? ''}`;
    const row = rows.get(key);
    if (row) {
      row.turns++;
      row.inputTokens += turn.inputTokens;
      row.outputTokens += turn.outputTokens;
    } else {
      rows.set(key, {
        model: turn.model,
        free: turn.free,
        turns: 1,
        inputTokens: turn.inputTokens,
        outputTokens: turn.outputTokens,
      });
    }
  }
  return [...rows.values()];
}

/**
 * The usage rows of a commit's turns for one run. `modelOf` answers an llm step's model (from the
 * commit itself or what the store already holds); `fixtures` are the run's.
 */
export function usageOfTurns(
  turns: readonly CompletedTurn[],
  modelOf: (llmStepId: string) => string | undefined,
  fixtures: Json | null,
): ModelUsage[] {
  return sumUsage(
    turns.map((turn) => {
      const model = modelOf(turn.llmStepId) ?? UNKNOWN_MODEL;
      const fixture = isFixtureTurn(fixtures, turn.llmStepId, turn.turn);
      return {
        model,
        free: freeReason(model, { reused: turn.reused, fixture }),
        inputTokens: turn.usage.inputTokens,
        outputTokens: turn.usage.outputTokens,
      };
    }),
  );
}

const FREE_REASONS: readonly FreeReason[] = ['mock', 'fixture', 'reused'];

/** A stored `run_usage.free` back to the type ('' is paid; anything unknown is read as paid). */
export function freeOfColumn(value: string): FreeReason | null {
  return (FREE_REASONS as readonly string[]).includes(value) ? (value as FreeReason) : null;
}
