/**
 * What the run's model turns cost (`runs.costs`), fetched when the run opens and again when it
 * ends; per step (`agent/llm#2`) and in total. A server without it shows no cost, not zero.
 */
import { isFinalStatus } from '@weft/engine';
import { useEffect, useState } from 'react';
import { useEditor } from '../store/editor-hooks.ts';
import { type RunCosts, runCosts, type StepCost } from './api.ts';

export function useRunCosts(): RunCosts | null {
  const runId = useEditor((state) => state.run?.runId ?? null);
  const ended = useEditor((state) => (state.run ? isFinalStatus(state.run.state.status) : false));
  const [costs, setCosts] = useState<{ runId: string; costs: RunCosts } | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: fetched again when the run ends (its last turns)
  useEffect(() => {
    if (!runId) return;
    let live = true;
    runCosts(runId)
      .then((result) => live && setCosts({ runId, costs: result }))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [runId, ended]);
  return costs && costs.runId === runId ? costs.costs : null;
}

/**
 * A step's cost: its own entry (a model turn; an llm step, its turns summed by the API), else the
 * sum of the entries under it (a map item, a parallel branch).
 */
export function costOfStep(costs: RunCosts, stepId: string): StepCost | null {
  const own = Object.hasOwn(costs.steps, stepId) ? costs.steps[stepId] : undefined;
  if (own) return own;
  // Turns only: an llm step's entry already sums its turns.
  const turns = Object.entries(costs.steps)
    .filter(([id]) => (id.startsWith(`${stepId}/`) || id.startsWith(`${stepId}[`)) && /\/llm#\d+$/.test(id))
    .map(([, cost]) => cost);
  if (turns.length === 0) return null;
  return turns.reduce(
    (sum, cost): StepCost => ({
      model: sum.model === cost.model ? sum.model : 'several models',
      usd: sum.usd + cost.usd,
      inputTokens: sum.inputTokens + cost.inputTokens,
      outputTokens: sum.outputTokens + cost.outputTokens,
      unpriced: [...new Set([...sum.unpriced, ...cost.unpriced])],
      free: sum.free === cost.free ? sum.free : null,
    }),
  );
}

/** What a cost says: free and why (`mock:` and fixture turns, reused ones), unknown prices named, else dollars. */
export function describeCost(cost: StepCost): string {
  if (cost.free)
    return `free (${cost.free === 'mock' ? 'mock model' : cost.free === 'fixture' ? 'recorded fixture' : 'reused'})`;
  if (cost.unpriced.length > 0) return `${formatUsd(cost.usd)} + no price for ${cost.unpriced.join(', ')}`;
  return formatUsd(cost.usd);
}

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(5)}`;
  return `$${usd.toFixed(4)}`;
}
