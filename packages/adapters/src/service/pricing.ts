/**
 * What model turns cost, in US dollars, from Pydantic's `genai-prices` tables (bundled with the
 * package: no network, and a price list kept up to date by its maintainers rather than by us),
 * with the user's own prices on top (`WEFT_PRICES`, price-overrides.ts). A model neither knows
 * is named as unpriced rather than counted as free. A turn costs nothing, and says why, when
 * its model is `mock:`, when a recorded fixture answered it, or when it was reused from the
 * run's seed (its source run paid). The tables are loaded on first use: they are large and most
 * commands never price anything.
 */
import type { Json, RunState, StepState } from '@weft/engine';
import type { FreeReason, ModelUsage } from '../store/types.ts';
import { freeReason, isFixtureTurn } from '../store/usage.ts';
import { type PriceOverrides, priceOverrides } from './price-overrides.ts';

export {
  PriceConfigError,
  type PriceOverride,
  type PriceOverrides,
  type PriceProblemReporter,
  parsePriceOverrides,
  reportPriceProblems,
} from './price-overrides.ts';

export interface TurnUsage {
  /** "<provider>:<model>", as a step names it. */
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Why it costs nothing (default: free only when the model is `mock:`). */
  free?: FreeReason | null;
  /** Turns summed into this one (default 1): priced per average turn, as tiered prices apply per call. */
  turns?: number;
  /** When the turn ran (ms epoch): the tables price by date. Default now. */
  at?: number;
}

export interface Cost {
  usd: number;
  /** Models whose turns the price tables do not know: their cost is not in `usd`. */
  unpriced: string[];
}

export interface PriceOptions {
  /** Where WEFT_PRICES is read from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** One turn priced: its cost, why it is free, or that nothing knows its model's price. */
export type PricedTurn =
  | { kind: 'free'; usd: 0; free: FreeReason }
  | { kind: 'priced'; usd: number; source: 'override' | 'table' }
  | { kind: 'unpriced'; usd: 0 };

type CalcPrice = typeof import('@pydantic/genai-prices').calcPrice;
let calc: Promise<CalcPrice> | undefined;

/** A function that prices turns with the tables and the overrides in force now. */
export async function pricer(options: PriceOptions = {}): Promise<(turn: TurnUsage) => PricedTurn> {
  const overrides: PriceOverrides = priceOverrides(options.env ?? process.env);
  calc ??= import('@pydantic/genai-prices').then((module) => module.calcPrice);
  const calcPrice = await calc;
  return (turn) => {
    const free = turn.free === undefined ? freeReason(turn.model, { reused: false, fixture: false }) : turn.free;
    if (free !== null) return { kind: 'free', usd: 0, free };
    const turns = Math.max(1, turn.turns ?? 1);
    const override = Object.hasOwn(overrides, turn.model) ? overrides[turn.model] : undefined;
    if (override) {
      const usd = (turn.inputTokens * override.inputPerMillion + turn.outputTokens * override.outputPerMillion) / 1e6;
      return { kind: 'priced', usd, source: 'override' };
    }
    const colon = turn.model.indexOf(':');
    const provider = colon > 0 ? turn.model.slice(0, colon) : '';
    const price = calcPrice(
      { input_tokens: turn.inputTokens / turns, output_tokens: turn.outputTokens / turns },
      turn.model.slice(colon + 1),
      {
        ...(provider ? { providerId: provider } : {}),
        ...(turn.at === undefined ? {} : { timestamp: new Date(turn.at) }),
      },
    );
    return price ? { kind: 'priced', usd: price.total_price * turns, source: 'table' } : { kind: 'unpriced', usd: 0 };
  };
}

export async function costOf(turns: readonly TurnUsage[], options: PriceOptions = {}): Promise<Cost> {
  const price = await pricer(options);
  let usd = 0;
  const unpriced = new Set<string>();
  for (const turn of turns) {
    const priced = price(turn);
    usd += priced.usd;
    if (priced.kind === 'unpriced') unpriced.add(turn.model);
  }
  return { usd, unpriced: [...unpriced] };
}

/**
 * A list row's cost from the tokens the store counted per model, with a `pricer` made once per
 * page; `at` is the run's date. `usd` is null when the run had paid turns and none of them could
 * be priced (a sum of nothing known is not $0).
 */
export function costOfUsage(
  usage: readonly ModelUsage[],
  price: (turn: TurnUsage) => PricedTurn,
  at?: number,
): { usd: number | null; unpriced: string[] } {
  let usd = 0;
  let paid = 0;
  let priced = 0;
  const unpriced = new Set<string>();
  for (const row of usage) {
    const result = price({ ...row, ...(at === undefined ? {} : { at }) });
    usd += result.usd;
    if (result.kind === 'free') continue;
    paid++;
    if (result.kind === 'priced') priced++;
    else unpriced.add(row.model);
  }
  return { usd: paid > 0 && priced === 0 ? null : usd, unpriced: [...unpriced].sort() };
}

/** The model turns of a run (or only those named), each with the model its llm step named (the turn's parent's input). */
export function turnsOf(state: RunState, only?: ReadonlySet<string>): TurnUsage[] {
  const turns: TurnUsage[] = [];
  for (const step of Object.values(state.steps)) {
    if (step.stepType !== 'model-turn' || !step.usage || (only && !only.has(step.stepId))) continue;
    turns.push({
      model: modelOf(state, step),
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
    });
  }
  return turns;
}

function modelOf(state: RunState, turn: StepState): string {
  const parent = turn.parentId === null ? undefined : state.steps[turn.parentId];
  const model = (parent?.input as { model?: unknown } | null | undefined)?.model;
  return typeof model === 'string' ? model : 'unknown';
}

/** What one model turn, or one llm step (its turns summed), cost. */
export interface StepCost {
  model: string;
  usd: number;
  inputTokens: number;
  outputTokens: number;
  /** The turn's model when no price is known for it (for an llm step: any of its turns'). */
  unpriced: string[];
  /** Why it cost nothing (an llm step: when every turn was free for the same reason). */
  free: FreeReason | null;
}

export interface RunCosts {
  total: Cost & { inputTokens: number; outputTokens: number };
  /** By step id: each model turn (`agent/llm#2`) and each llm step (`agent`) with its turns summed. */
  steps: Record<string, StepCost>;
}

/**
 * A run's cost per model turn and per llm step, from the state its events fold to. `fixtures`
 * are the run's: a turn they answered never reached a provider (as is one whose call input
 * carried its fixture).
 */
export async function costsOfRun(
  state: RunState,
  fixtures: Json | null,
  options: PriceOptions = {},
): Promise<RunCosts> {
  const price = await pricer(options);
  const steps: Record<string, StepCost> = Object.create(null);
  const total: RunCosts['total'] = { usd: 0, unpriced: [], inputTokens: 0, outputTokens: 0 };
  const unpriced = new Set<string>();
  for (const id of state.order) {
    const step = state.steps[id]!;
    if (step.stepType !== 'model-turn' || !step.usage) continue;
    const model = modelOf(state, step);
    const number = Number(/\/llm#(\d+)$/.exec(step.stepId)?.[1] ?? Number.NaN);
    const fixture =
      (step.input as { fixture?: unknown } | null)?.fixture !== undefined ||
      (step.parentId !== null && isFixtureTurn(fixtures, step.parentId, number));
    const free = freeReason(model, { reused: step.reused, fixture });
    const { inputTokens, outputTokens } = step.usage;
    const priced = price({ model, inputTokens, outputTokens, free, ...(step.startedAt ? { at: step.startedAt } : {}) });
    const cost: StepCost = {
      model,
      usd: priced.usd,
      inputTokens,
      outputTokens,
      unpriced: priced.kind === 'unpriced' ? [model] : [],
      free,
    };
    steps[id] = cost;
    if (priced.kind === 'unpriced') unpriced.add(model);
    total.usd += cost.usd;
    total.inputTokens += inputTokens;
    total.outputTokens += outputTokens;
    if (step.parentId !== null) rollUp(steps, step.parentId, cost);
  }
  total.unpriced = [...unpriced].sort();
  return { total, steps };
}

/** Adds a turn's cost to its llm step's entry. */
function rollUp(steps: Record<string, StepCost>, llmStepId: string, turn: StepCost): void {
  const step = steps[llmStepId];
  if (!step) {
    steps[llmStepId] = { ...turn, unpriced: [...turn.unpriced] };
    return;
  }
  step.usd += turn.usd;
  step.inputTokens += turn.inputTokens;
  step.outputTokens += turn.outputTokens;
  for (const model of turn.unpriced) if (!step.unpriced.includes(model)) step.unpriced.push(model);
  if (step.free !== turn.free) step.free = null;
}
