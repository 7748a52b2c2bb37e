/**
 * What model turns cost, in US dollars, from Pydantic's `genai-prices` tables (bundled with the
 * package: no network, and a price list kept up to date by its maintainers rather than by us).
 * A model the tables do not know is named as unpriced rather than counted as free; the offline
 * `mock:` provider costs nothing. Loaded on first use: the tables are large and most commands
 * never price anything.
 */
import type { RunState } from '@weft/engine';

export interface TurnUsage {
  /** "<provider>:<model>", as a step names it. */
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface Cost {
  usd: number;
  /** Models whose turns the price tables do not know: their cost is not in `usd`. */
  unpriced: string[];
}

type CalcPrice = typeof import('@pydantic/genai-prices').calcPrice;
let calc: Promise<CalcPrice> | undefined;

export async function costOf(turns: readonly TurnUsage[]): Promise<Cost> {
  calc ??= import('@pydantic/genai-prices').then((module) => module.calcPrice);
  const calcPrice = await calc;
  let usd = 0;
  const unpriced = new Set<string>();
  for (const turn of turns) {
    const colon = turn.model.indexOf(':');
    const provider = colon > 0 ? turn.model.slice(0, colon) : '';
    if (provider === 'mock') continue;
    const price = calcPrice(
      { input_tokens: turn.inputTokens, output_tokens: turn.outputTokens },
      turn.model.slice(colon + 1),
      provider ? { providerId: provider } : {},
    );
    if (price) usd += price.total_price;
    else unpriced.add(turn.model);
  }
  return { usd, unpriced: [...unpriced] };
}

/** The model turns of a run (or only those named), each with the model its llm step named (the turn's parent's input). */
export function turnsOf(state: RunState, only?: ReadonlySet<string>): TurnUsage[] {
  const turns: TurnUsage[] = [];
  for (const step of Object.values(state.steps)) {
    if (step.stepType !== 'model-turn' || !step.usage || (only && !only.has(step.stepId))) continue;
    const parent = step.parentId === null ? undefined : state.steps[step.parentId];
    const model = (parent?.input as { model?: unknown } | null | undefined)?.model;
    turns.push({
      model: typeof model === 'string' ? model : 'unknown',
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
    });
  }
  return turns;
}
