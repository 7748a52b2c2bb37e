/** The llm step as an agent loop: each model turn and each tool call its own checkpointed step. */
import { describe, expect, it } from 'vitest';
import type { ModelTurnOutput } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { testFlow } from '../test-support/flows.ts';
import { addSpec, agentFlow, modelInput, run, setup } from '../test-support/llm-bench.ts';
import { eventTrail } from '../test-support/memory-host.ts';

describe('llm: agent loop', () => {
  const addThenAnswer = {
    agent: [{ toolCalls: [{ tool: 'add', args: { a: 1, b: 2 } }] }, { text: 'It is 3.' }],
  };

  it('checkpoints each model turn and each tool call under its own id', async () => {
    const { host, calls } = setup();
    const output = await run(agentFlow({ tools: ['add'], maxSteps: 5 }), host, { fixtures: addThenAnswer });

    expect(calls.map((call) => call.id)).toEqual(['agent/llm#1', 'agent/tool#1.0', 'agent/llm#2']);
    expect(calls[1]!.call).toEqual({ kind: 'tool', input: { tool: 'add', args: { a: 1, b: 2 } } });
    expect(eventTrail(host.events)).toEqual([
      'started:agent',
      'started:agent/llm#1',
      'completed:agent/llm#1',
      'started:agent/tool#1.0',
      'completed:agent/tool#1.0',
      'started:agent/llm#2',
      'completed:agent/llm#2',
      'completed:agent',
    ]);
    expect(host.events.find((e) => e.type === 'step.started' && e.stepId === 'agent/tool#1.0')).toEqual({
      type: 'step.started',
      stepId: 'agent/tool#1.0',
      stepType: 'tool-call',
      parentId: 'agent',
      input: { tool: 'add', args: { a: 1, b: 2 } },
    });
    expect(output).toMatchObject({
      text: 'It is 3.',
      finishReason: 'stop',
      toolCalls: [{ id: 'call_1_0', tool: 'add', args: { a: 1, b: 2 }, result: 3 }],
    });
  });

  it('offers the tools to the model by name, description and parameters', async () => {
    const { host, calls } = setup();
    await run(agentFlow({ tools: ['add'], maxSteps: 5 }), host, { fixtures: addThenAnswer });
    expect(modelInput(calls[0]!.call).tools).toEqual([{ name: 'add', ...addSpec }]);
    expect(modelInput(calls[0]!.call).fixture).toEqual(addThenAnswer.agent[0]);
    expect(modelInput(calls[2]!.call)).toMatchObject({ turn: 2, fixture: addThenAnswer.agent[1] });
  });

  it('carries the messages forward exactly as the model returned them', async () => {
    // Provider metadata on the assistant message must survive untouched (seed 003).
    const turns: ModelTurnOutput[] = [
      {
        text: '',
        toolCalls: [{ id: 'tc-9', tool: 'add', args: { a: 1, b: 2 } }],
        responseMessages: [
          {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 'tc-9', toolName: 'add', input: { a: 1, b: 2 } }],
            providerOptions: { openai: { itemId: 'msg_1' } },
          },
        ],
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        finishReason: 'tool-calls',
      },
      {
        text: '3',
        toolCalls: [],
        responseMessages: [{ role: 'assistant', content: [{ type: 'text', text: '3', providerMetadata: { x: 1 } }] }],
        usage: { inputTokens: 20, outputTokens: 1, totalTokens: 21 },
        finishReason: 'stop',
      },
    ];
    const { host, calls } = setup({ model: (input) => turns[input.turn - 1]! });
    const output = (await run(agentFlow({ tools: ['add'], maxSteps: 5 }), host)) as { messages: Json[] };

    const conversation = [
      { role: 'user', content: 'What is 1+2?' },
      turns[0]!.responseMessages[0]!,
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'tc-9', toolName: 'add', output: { type: 'json', value: 3 } }],
      },
      turns[1]!.responseMessages[0]!,
    ];
    expect(modelInput(calls[2]!.call).messages).toEqual(conversation.slice(0, 3));
    expect(output.messages).toEqual(conversation);
    expect(output).toMatchObject({ usage: { inputTokens: 30, outputTokens: 6, totalTokens: 36 } });
  });

  it('runs several tool calls of one turn as #turn.index and answers them in one tool message', async () => {
    const { host, calls } = setup();
    const output = (await run(agentFlow({ tools: ['add'], maxSteps: 3 }), host, {
      fixtures: {
        agent: [
          {
            toolCalls: [
              { tool: 'add', args: { a: 1, b: 1 } },
              { tool: 'add', args: { a: 2, b: 2 } },
            ],
          },
          { text: 'done' },
        ],
      },
    })) as { messages: { role: string; content: { toolCallId: string; output: Json }[] }[] };
    expect(calls.map((call) => call.id)).toEqual(['agent/llm#1', 'agent/tool#1.0', 'agent/tool#1.1', 'agent/llm#2']);
    const toolMessage = output.messages[2]!;
    expect(toolMessage.role).toBe('tool');
    expect(toolMessage.content.map((part) => [part.toolCallId, part.output])).toEqual([
      ['call_1_0', { type: 'json', value: 2 }],
      ['call_1_1', { type: 'json', value: 4 }],
    ]);
  });

  it('feeds a failing tool back to the model instead of failing the run', async () => {
    const { host, calls } = setup();
    const output = (await run(agentFlow({ tools: ['boom'], maxSteps: 3 }), host, {
      fixtures: { agent: [{ toolCalls: [{ tool: 'boom', args: {} }] }, { text: 'Sorry, the tool failed.' }] },
    })) as { text: string; toolCalls: Json; messages: Json[] };

    expect(output.text).toBe('Sorry, the tool failed.');
    expect(output.toolCalls).toEqual([{ id: 'call_1_0', tool: 'boom', args: {}, result: { error: 'the tool broke' } }]);
    expect(modelInput(calls[2]!.call).messages[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1_0',
          toolName: 'boom',
          output: { type: 'error-text', value: 'the tool broke' },
        },
      ],
    });
    expect(host.events).toContainEqual({
      type: 'step.failed',
      stepId: 'agent/tool#1.0',
      error: { name: 'Error', message: 'the tool broke' },
    });
    expect(eventTrail(host.events).at(-1)).toBe('completed:agent');
  });

  it('tells the model about a tool it made up', async () => {
    const { host, calls } = setup();
    const output = (await run(agentFlow({ tools: ['add'], maxSteps: 2 }), host, {
      fixtures: { agent: [{ toolCalls: [{ tool: 'nope', args: {} }] }, { text: 'ok' }] },
    })) as { toolCalls: Json };
    expect(calls.map((call) => call.id)).toEqual(['agent/llm#1', 'agent/llm#2']);
    expect(output.toolCalls).toEqual([
      { id: 'call_1_0', tool: 'nope', args: {}, result: { error: "unknown tool 'nope'" } },
    ]);
  });

  it.each(['toString', 'constructor', 'hasOwnProperty'])(
    'tells the model %s is a tool it made up (never an inherited member)',
    async (name) => {
      const { host, calls } = setup();
      const output = (await run(agentFlow({ tools: ['add'], maxSteps: 2 }), host, {
        fixtures: { agent: [{ toolCalls: [{ tool: name, args: {} }] }, { text: 'ok' }] },
      })) as { toolCalls: Json };
      expect(calls.map((call) => call.id)).toEqual(['agent/llm#1', 'agent/llm#2']);
      expect(output.toolCalls).toEqual([
        { id: 'call_1_0', tool: name, args: {}, result: { error: `unknown tool '${name}'` } },
      ]);
    },
  );

  it('stops after maxSteps model turns even if the model keeps calling tools', async () => {
    const { host, calls } = setup({ model: () => ({ toolCalls: [{ tool: 'add', args: { a: 1, b: 1 } }] }) });
    const output = await run(agentFlow({ tools: ['add'], maxSteps: 2 }), host);
    expect(calls.map((call) => call.id)).toEqual(['agent/llm#1', 'agent/tool#1.0', 'agent/llm#2', 'agent/tool#2.0']);
    expect(output).toMatchObject({ finishReason: 'tool-calls' });
  });

  it('gives the model another turn after the SDK answered a malformed tool call itself', async () => {
    const turns: ModelTurnOutput[] = [
      {
        text: '',
        toolCalls: [],
        responseMessages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'add', input: 'bad' }] },
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'add', output: 'invalid' }] },
        ],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        finishReason: 'tool-calls',
      },
    ];
    const { host, calls } = setup({ model: (input) => turns[input.turn - 1] ?? { text: 'recovered' } });
    const output = await run(agentFlow({ tools: ['add'], maxSteps: 3 }), host);
    expect(calls.map((call) => call.id)).toEqual(['agent/llm#1', 'agent/llm#2']);
    expect(output).toMatchObject({ text: 'recovered' });
  });

  it('continues an earlier conversation through messages (the seed is the whole output messages)', async () => {
    const { host, calls } = setup();
    const flow = testFlow([
      { id: 'first', type: 'llm', model: 'mock:echo', system: 'S', prompt: 'one' },
      { id: 'second', type: 'llm', model: 'mock:echo', messages: '=steps.first.output.messages', prompt: 'two' },
    ]);
    const output = (await interpret(flow, null, host)) as { messages: Json[] };
    const firstMessages = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
    ];
    expect(modelInput(calls[1]!.call).messages).toEqual([...firstMessages, { role: 'user', content: 'two' }]);
    expect(modelInput(calls[1]!.call).system).toBeUndefined();
    expect(output.messages).toEqual([
      ...firstMessages,
      { role: 'user', content: 'two' },
      { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
    ]);
  });
});
