/**
 * Model turns priced from the genai-prices tables and the user's overrides: known models cost,
 * unknown ones are named, mock, fixture and reused turns are free and say so; per turn and per
 * llm step for a run, per model for a list row.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunEventInput, runState } from '@weft/engine';
import { afterAll, describe, expect, it } from 'vitest';
import { costOf, costOfUsage, costsOfRun, PriceConfigError, parsePriceOverrides, pricer, turnsOf } from './pricing.ts';

// gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
const mini = (input: number, output: number) => (input * 0.15 + output * 0.6) / 1e6;

const dir = mkdtempSync(join(tmpdir(), 'weft-prices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function pricesFile(name: string, doc: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
}

it('prices known models, names unknown ones instead of calling them free, and counts mock: as nothing', async () => {
  const cost = await costOf([
    { model: 'openai:gpt-4o-mini', inputTokens: 1000, outputTokens: 100 },
    { model: 'openai:gpt-4o-mini', inputTokens: 1000, outputTokens: 100 },
    { model: 'mock:echo', inputTokens: 5000, outputTokens: 5000 },
    { model: 'someone:else', inputTokens: 10, outputTokens: 10 },
  ]);
  expect(cost.usd).toBeCloseTo(2 * mini(1000, 100), 10);
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

describe('price overrides (WEFT_PRICES)', () => {
  let bad = 0;
  it('win over the tables, and price models the tables lack', async () => {
    const env = {
      WEFT_PRICES: pricesFile('prices.json', {
        'openai:gpt-4o-mini': { inputPerMillion: 1, outputPerMillion: 2 },
        'local:llama3': { inputPerMillion: 0, outputPerMillion: 0 },
      }),
    };
    const cost = await costOf(
      [
        { model: 'openai:gpt-4o-mini', inputTokens: 1_000_000, outputTokens: 500_000 },
        { model: 'local:llama3', inputTokens: 50, outputTokens: 50 },
        { model: 'openai:gpt-4o', inputTokens: 0, outputTokens: 0 },
      ],
      { env },
    );
    expect(cost).toEqual({ usd: 2, unpriced: [] });
    // Without the file, the table's price and an unknown local model.
    expect(await costOf([{ model: 'local:llama3', inputTokens: 1, outputTokens: 1 }], { env: {} })).toEqual({
      usd: 0,
      unpriced: ['local:llama3'],
    });
  });

  it('are read again when the file changes', async () => {
    const file = pricesFile('changing.json', { 'x:y': { inputPerMillion: 1, outputPerMillion: 0 } });
    const turn = { model: 'x:y', inputTokens: 1_000_000, outputTokens: 0 };
    expect((await costOf([turn], { env: { WEFT_PRICES: file } })).usd).toBe(1);
    writeFileSync(file, JSON.stringify({ 'x:y': { inputPerMillion: 30, outputPerMillion: 0 } }));
    expect((await costOf([turn], { env: { WEFT_PRICES: file } })).usd).toBe(30);
  });

  it.each([
    ['{ not json', '', /^WEFT_PRICES file .*bad-\d+\.json: not JSON/],
    [{ 'openai:gpt-4o': { inputPerMillion: -1, outputPerMillion: 1 } }, '"openai:gpt-4o".inputPerMillion', />=0/],
    [{ 'openai:gpt-4o': { inputPerMillion: 1 } }, '"openai:gpt-4o".outputPerMillion', /number/],
    [{ 'openai:gpt-4o': { inputPerMillion: 1, outputPerMillion: 1, per: 'k' } }, '"openai:gpt-4o"', /per/],
    [{ gpt4: { inputPerMillion: 1, outputPerMillion: 1 } }, '"gpt4"', /<provider>:<model>/],
    [[1, 2], '', /record|object/],
  ])('refuse a bad file, naming the file and the field (%#)', (doc, field, message) => {
    const file = pricesFile(`bad-${++bad}.json`, doc);
    let error: unknown;
    try {
      parsePriceOverrides(typeof doc === 'string' ? doc : JSON.stringify(doc), file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PriceConfigError);
    expect((error as PriceConfigError).field).toBe(field);
    expect((error as PriceConfigError).message).toContain(`WEFT_PRICES file ${file}: `);
    expect((error as PriceConfigError).message).toMatch(message);
  });

  // A file that is not there, or cannot be used, leaves prices to the tables: price-overrides.test.ts.
});

describe('a list row priced from its usage per model', () => {
  it('adds what is priced, leaves free turns at 0, and is null only when no paid turn has a price', async () => {
    const price = await pricer({ env: {} });
    expect(
      costOfUsage(
        [
          { model: 'openai:gpt-4o-mini', free: null, turns: 2, inputTokens: 2000, outputTokens: 200 },
          { model: 'openai:gpt-4o-mini', free: 'fixture', turns: 1, inputTokens: 9999, outputTokens: 9999 },
          { model: 'zz:unknown', free: null, turns: 1, inputTokens: 1, outputTokens: 1 },
        ],
        price,
      ),
    ).toEqual({ usd: expect.closeTo(mini(2000, 200), 10), unpriced: ['zz:unknown'] });
    expect(
      costOfUsage([{ model: 'zz:unknown', free: null, turns: 1, inputTokens: 1, outputTokens: 1 }], price),
    ).toEqual({ usd: null, unpriced: ['zz:unknown'] });
    expect(
      costOfUsage([{ model: 'mock:echo', free: 'mock', turns: 3, inputTokens: 5, outputTokens: 5 }], price),
    ).toEqual({ usd: 0, unpriced: [] });
    expect(costOfUsage([], price)).toEqual({ usd: 0, unpriced: [] });
  });
});

describe("a run's costs per model turn and per llm step", () => {
  const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, totalTokens: 0 });
  const turn = (llm: string, n: number, input: number, output: number, reused = false): RunEventInput[] => [
    { type: 'step.started', stepId: `${llm}/llm#${n}`, stepType: 'model-turn', parentId: llm },
    {
      type: 'step.completed',
      stepId: `${llm}/llm#${n}`,
      output: null,
      usage: usage(input, output),
      ...(reused ? { reused: true as const } : {}),
    },
  ];
  const state = runState([
    { type: 'step.started', stepId: 'agent', stepType: 'llm', input: { model: 'openai:gpt-4o-mini' } },
    ...turn('agent', 1, 1000, 100), // answered by the run's fixture
    ...turn('agent', 2, 2000, 200),
    ...turn('agent', 3, 3000, 300, true), // reused from the seed
    { type: 'step.started', stepId: 'echo', stepType: 'llm', input: { model: 'mock:echo' } },
    ...turn('echo', 1, 50, 50),
    { type: 'step.started', stepId: 'odd', stepType: 'llm', input: { model: 'acme:secret' } },
    ...turn('odd', 1, 10, 10),
    { type: 'step.started', stepId: 'tool', stepType: 'tool' },
    { type: 'step.completed', stepId: 'tool', output: 1 },
  ]);

  it('prices each turn, says why free ones are free, rolls turns up into their llm step', async () => {
    const costs = await costsOfRun(state, { agent: [{ text: 'recorded' }] }, { env: {} });
    expect(costs.steps['agent/llm#1']).toEqual({
      model: 'openai:gpt-4o-mini',
      usd: 0,
      inputTokens: 1000,
      outputTokens: 100,
      unpriced: [],
      free: 'fixture',
    });
    expect(costs.steps['agent/llm#2']).toMatchObject({ usd: expect.closeTo(mini(2000, 200), 12), free: null });
    expect(costs.steps['agent/llm#3']).toMatchObject({ usd: 0, free: 'reused' });
    expect(costs.steps.agent).toEqual({
      model: 'openai:gpt-4o-mini',
      usd: expect.closeTo(mini(2000, 200), 12),
      inputTokens: 6000,
      outputTokens: 600,
      unpriced: [],
      free: null,
    });
    expect(costs.steps.echo).toMatchObject({ usd: 0, free: 'mock', inputTokens: 50 });
    expect(costs.steps.odd).toMatchObject({ usd: 0, free: null, unpriced: ['acme:secret'] });
    expect(Object.keys(costs.steps)).not.toContain('tool');
    expect(costs.total).toEqual({
      usd: expect.closeTo(mini(2000, 200), 12),
      unpriced: ['acme:secret'],
      inputTokens: 6060,
      outputTokens: 660,
    });
  });

  it('charges the turns past the recorded fixtures, and every turn without fixtures', async () => {
    const none = await costsOfRun(state, null, { env: {} });
    expect(none.steps['agent/llm#1']).toMatchObject({ free: null, usd: expect.closeTo(mini(1000, 100), 12) });
    const byPath = await costsOfRun(state, { agent: [{}, {}] }, { env: {} });
    expect(byPath.steps['agent/llm#2']).toMatchObject({ free: 'fixture', usd: 0 });
  });
});
