import { describe, expect, it } from 'vitest';
import type { RunCosts } from './api.ts';
import { costOfStep, describeCost } from './use-costs.ts';

const turn = (model: string, usd: number, extra: Partial<RunCosts['steps'][string]> = {}) => ({
  model,
  usd,
  inputTokens: 10,
  outputTokens: 5,
  unpriced: [],
  free: null,
  ...extra,
});

const costs: RunCosts = {
  total: { usd: 0.003, unpriced: ['local:llama'], inputTokens: 40, outputTokens: 20 },
  steps: {
    'agent/llm#1': turn('openai:gpt-4o-mini', 0.001),
    'agent/llm#2': turn('openai:gpt-4o-mini', 0.002),
    agent: turn('openai:gpt-4o-mini', 0.003, { inputTokens: 20, outputTokens: 10 }),
    'each[0]/pick/llm#1': turn('mock:echo', 0, { free: 'mock' }),
    'each[0]/pick': turn('mock:echo', 0, { free: 'mock' }),
    'each[1]/pick/llm#1': turn('local:llama', 0, { unpriced: ['local:llama'] }),
    'each[1]/pick': turn('local:llama', 0, { unpriced: ['local:llama'] }),
  },
};

describe('costOfStep', () => {
  it('takes a turn’s or an llm step’s own entry', () => {
    expect(costOfStep(costs, 'agent/llm#2')?.usd).toBe(0.002);
    expect(costOfStep(costs, 'agent')).toMatchObject({ usd: 0.003, inputTokens: 20 });
  });

  it('sums the turns under a map and says what it cannot price', () => {
    expect(costOfStep(costs, 'each')).toEqual({
      model: 'several models',
      usd: 0,
      inputTokens: 20,
      outputTokens: 10,
      unpriced: ['local:llama'],
      free: null,
    });
    expect(costOfStep(costs, 'each[0]')).toMatchObject({ free: 'mock', inputTokens: 10 });
    expect(costOfStep(costs, 'nothing')).toBeNull();
  });
});

describe('describeCost', () => {
  it('says why a turn was free, names unknown prices, else gives dollars', () => {
    expect(describeCost(turn('mock:echo', 0, { free: 'mock' }))).toBe('free (mock model)');
    expect(describeCost(turn('openai:x', 0, { free: 'fixture' }))).toBe('free (recorded fixture)');
    expect(describeCost(turn('local:llama', 0, { unpriced: ['local:llama'] }))).toBe('$0 + no price for local:llama');
    expect(describeCost(turn('openai:x', 0.0123))).toBe('$0.0123');
  });
});
