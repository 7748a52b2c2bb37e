/** Model turns priced from the genai-prices tables: known models cost, unknown ones are named, mock is free. */
import { runState } from '@weft/engine';
import { expect, it } from 'vitest';
import { costOf, turnsOf } from './pricing.ts';

it('prices known models, names unknown ones instead of calling them free, and counts mock: as nothing', async () => {
  const cost = await costOf([
    { model: 'openai:gpt-4o-mini', inputTokens: 1000, outputTokens: 100 },
    { model: 'openai:gpt-4o-mini', inputTokens: 1000, outputTokens: 100 },
    { model: 'mock:echo', inputTokens: 5000, outputTokens: 5000 },
    { model: 'someone:else', inputTokens: 10, outputTokens: 10 },
  ]);
  // gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
  expect(cost.usd).toBeCloseTo((2 * (1000 * 0.15 + 100 * 0.6)) / 1e6, 10);
  expect(cost.unpriced).toEqual(['someone:else']);
});

it("takes each turn's model from its llm step, and only the turns asked for", () => {
  const state = runState([
    { type: 'step.started', stepId: 'ask', stepType: 'llm', input: { model: 'anthropic:claude-3-5-haiku-latest' } },
    { type: 'step.started', stepId: 'ask/llm#1', stepType: 'model-turn', parentId: 'ask' },
    {
      type: 'step.completed',
      stepId: 'ask/llm#1',
      output: null,
      usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
    },
    { type: 'step.started', stepId: 'ask/llm#2', stepType: 'model-turn', parentId: 'ask' },
    {
      type: 'step.completed',
      stepId: 'ask/llm#2',
      output: null,
      usage: { inputTokens: 9, outputTokens: 1, totalTokens: 10 },
    },
  ]);
  expect(turnsOf(state)).toEqual([
    { model: 'anthropic:claude-3-5-haiku-latest', inputTokens: 7, outputTokens: 3 },
    { model: 'anthropic:claude-3-5-haiku-latest', inputTokens: 9, outputTokens: 1 },
  ]);
  expect(turnsOf(state, new Set(['ask/llm#2']))).toEqual([
    { model: 'anthropic:claude-3-5-haiku-latest', inputTokens: 9, outputTokens: 1 },
  ]);
});
