import { describe, expect, it } from 'vitest';
import type { Fixtures, FixtureTurn, ModelTurnInput, ModelTurnOutput } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import { flowSchema } from '../ir/flow.ts';
import type { Json } from '../json.ts';
import { MemoryHost } from '../test-support/memory-host.ts';
import type { RunEventInput } from './events.ts';
import { fixturesFromEvents } from './fixtures.ts';

const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

function turnOutput(turn: Partial<ModelTurnOutput>): Json {
  return { text: '', toolCalls: [], responseMessages: [], usage, finishReason: 'stop', ...turn } as unknown as Json;
}

function started(stepId: string, parentId: string, stepType = 'model-turn'): RunEventInput {
  return { type: 'step.started', stepId, stepType, parentId };
}

function completed(stepId: string, output: Json): RunEventInput {
  return { type: 'step.completed', stepId, output };
}

describe('fixturesFromEvents', () => {
  it.each<[string, RunEventInput[], Fixtures]>([
    ['no events', [], {}],
    [
      'one text turn',
      [
        { type: 'step.started', stepId: 'agent', stepType: 'llm' },
        started('agent/llm#1', 'agent'),
        { type: 'step.delta', stepId: 'agent/llm#1', text: 'hel' },
        completed('agent/llm#1', turnOutput({ text: 'hello' })),
        completed('agent', { text: 'hello' }),
      ],
      { agent: [{ text: 'hello' }] },
    ],
    [
      'an agent loop: tool calls, then text; tool-call sub-steps are not turns',
      [
        started('agent/llm#1', 'agent'),
        completed(
          'agent/llm#1',
          turnOutput({
            toolCalls: [{ id: 'c1', tool: 'add', args: { a: 1, b: 2 } }],
            usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
          }),
        ),
        started('agent/tool#1.0', 'agent', 'tool-call'),
        completed('agent/tool#1.0', 3),
        started('agent/llm#2', 'agent'),
        completed('agent/llm#2', turnOutput({ text: '3' })),
      ],
      {
        agent: [
          {
            toolCalls: [{ tool: 'add', args: { a: 1, b: 2 } }],
            usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
          },
          { text: '3' },
        ],
      },
    ],
    [
      'structured output keeps the object',
      [
        started('extract/llm#1', 'extract'),
        completed('extract/llm#1', turnOutput({ text: '{"a":1}', object: { a: 1 } })),
      ],
      { extract: [{ text: '{"a":1}', object: { a: 1 } }] },
    ],
    [
      'map iterations are keyed by full path, turns ordered by number even when completed out of order',
      [
        started('each[1]/ask/llm#1', 'each[1]/ask'),
        started('each[0]/ask/llm#1', 'each[0]/ask'),
        completed('each[1]/ask/llm#1', turnOutput({ text: 'b' })),
        completed('each[0]/ask/llm#1', turnOutput({ text: 'a' })),
        completed('loop/llm#2', turnOutput({ text: 'second' })),
        completed('loop/llm#1', turnOutput({ text: 'first' })),
      ],
      {
        'each[1]/ask': [{ text: 'b' }],
        'each[0]/ask': [{ text: 'a' }],
        loop: [{ text: 'first' }, { text: 'second' }],
      },
    ],
    [
      'a failed turn is left out; a non-turn output and a step that only looks like a turn are ignored',
      [
        started('agent/llm#1', 'agent'),
        { type: 'step.failed', stepId: 'agent/llm#1', error: { name: 'Error', message: 'boom' } },
        started('odd/llm#1', 'odd', 'transform'),
        completed('odd/llm#1', turnOutput({ text: 'not a turn' })),
        completed('weird/llm#1', 'a string'),
      ],
      {},
    ],
  ])('%s', (_name, events, expected) => {
    expect(fixturesFromEvents(events)).toEqual(expected);
  });

  it('re-running with the exported fixtures gives the same output and the same turns', async () => {
    const flow = flowSchema.parse({
      irVersion: 1,
      id: 'agent',
      name: 'Agent',
      steps: [
        {
          id: 'each',
          type: 'map',
          items: '=input.xs',
          steps: [
            { id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'x={{ item }}', tools: ['twice'], maxSteps: 3 },
          ],
        },
      ],
      tools: { twice: { description: 'x2', parameters: { type: 'object' }, source: 'return args.n * 2' } },
    });
    // A scripted "provider": first turn calls the tool, the second answers.
    const live = (input: ModelTurnInput): ModelTurnOutput => {
      const fixture: FixtureTurn | undefined = input.fixture;
      if (fixture) {
        return {
          text: fixture.text ?? '',
          toolCalls: (fixture.toolCalls ?? []).map((call, i) => ({ id: `c${i}`, ...call })),
          responseMessages: [],
          usage: fixture.usage ?? usage,
          finishReason: 'stop',
        };
      }
      const n = input.messages.length;
      return input.turn === 1
        ? {
            text: '',
            toolCalls: [{ id: 'c0', tool: 'twice', args: { n } }],
            responseMessages: [],
            usage: { inputTokens: n, outputTokens: 1, totalTokens: n + 1 },
            finishReason: 'tool-calls',
          }
        : { text: `done ${n}`, toolCalls: [], responseMessages: [], usage, finishReason: 'stop' };
    };
    const execute = (call: { kind: string; input: unknown }): Json => {
      if (call.kind === 'model-turn') return live(call.input as ModelTurnInput) as unknown as Json;
      if (call.kind === 'code') return ((call.input as { args: { n: number } }).args.n * 2) as Json;
      throw new Error(`unexpected ${call.kind}`);
    };
    const first = new MemoryHost({ execute });
    const output = await interpret(flow, { xs: [1, 2] }, first);
    const fixtures = fixturesFromEvents(first.events);
    expect(Object.keys(fixtures).sort()).toEqual(['each[0]/agent', 'each[1]/agent']);

    const again = new MemoryHost({
      execute: (call, id) => {
        if (call.kind === 'model-turn' && !call.input.fixture) throw new Error(`${id} called the provider`);
        return execute(call);
      },
    });
    expect(await interpret(flow, { xs: [1, 2] }, again, { fixtures })).toEqual(output);
    expect(fixturesFromEvents(again.events)).toEqual(fixtures);
  });
});
