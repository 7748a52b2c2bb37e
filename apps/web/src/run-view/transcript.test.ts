/** The transcript and the messages a turn sent, from the events an agent loop emits (as llm.ts emits them). */
import { type Json, type RunEvent, type RunEventInput, runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { messagesSentTo, transcriptOf } from './transcript.ts';

const turn1 = {
  text: 'Let me look.',
  toolCalls: [
    { id: 'call_1_0', tool: 'search', args: { q: 'otters' } },
    { id: 'call_1_1', tool: 'fetch', args: { url: 'x' } },
  ],
  responseMessages: [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool-call', toolCallId: 'call_1_0', toolName: 'search', input: { q: 'otters' } },
        { type: 'tool-call', toolCallId: 'call_1_1', toolName: 'fetch', input: { url: 'x' } },
      ],
    },
  ],
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  finishReason: 'tool-calls',
};

const inputs: RunEventInput[] = [
  { type: 'run.started', flowId: 'research', flowVersion: 1, input: null, backend: 'inprocess' },
  {
    type: 'step.started',
    stepId: 'agent',
    stepType: 'llm',
    input: { model: 'mock:echo', system: 'Be brief.', messages: [{ role: 'user', content: 'Otters?' }], tools: [] },
  },
  { type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' },
  { type: 'step.delta', stepId: 'agent/llm#1', text: 'Let me' },
  { type: 'step.completed', stepId: 'agent/llm#1', output: turn1 as unknown as Json, usage: turn1.usage },
  {
    type: 'step.started',
    stepId: 'agent/tool#1.0',
    stepType: 'tool-call',
    parentId: 'agent',
    input: { tool: 'search', args: { q: 'otters' } },
  },
  {
    type: 'step.started',
    stepId: 'agent/tool#1.1',
    stepType: 'tool-call',
    parentId: 'agent',
    input: { tool: 'fetch', args: { url: 'x' } },
  },
  { type: 'step.completed', stepId: 'agent/tool#1.0', output: ['river otter'] },
  { type: 'step.failed', stepId: 'agent/tool#1.1', error: { name: 'Error', message: 'offline' } },
  { type: 'step.started', stepId: 'agent/llm#2', stepType: 'model-turn', parentId: 'agent' },
  { type: 'step.delta', stepId: 'agent/llm#2', text: 'Otters are' },
];
const events: RunEvent[] = inputs.map((event, index) => ({ ...event, runId: 'r', seq: index + 1, at: index }));

describe('transcriptOf', () => {
  it('reads the conversation so far as chat, the running turn streaming', () => {
    const entries = transcriptOf(runState(events), 'agent');
    expect(entries.map((entry) => entry.kind)).toEqual(['system', 'message', 'turn', 'tool', 'tool', 'turn']);
    expect(entries[1]).toMatchObject({ role: 'user', text: 'Otters?' });
    expect(entries[2]).toMatchObject({
      stepId: 'agent/llm#1',
      turn: 1,
      text: 'Let me look.',
      streaming: false,
      calls: [
        { id: 'call_1_0', tool: 'search', args: { q: 'otters' } },
        { id: 'call_1_1', tool: 'fetch', args: { url: 'x' } },
      ],
    });
    expect(entries[3]).toMatchObject({ stepId: 'agent/tool#1.0', status: 'completed', result: ['river otter'] });
    expect(entries[4]).toMatchObject({ stepId: 'agent/tool#1.1', status: 'failed', error: 'offline' });
    expect(entries[5]).toMatchObject({ stepId: 'agent/llm#2', text: 'Otters are', streaming: true });
  });

  it('at an earlier moment, shows the second call requested but not answered', () => {
    const entries = transcriptOf(runState(events.slice(0, 7)), 'agent');
    expect(entries.at(-1)).toMatchObject({ kind: 'tool', stepId: 'agent/tool#1.1', status: 'running', result: null });
  });
});

describe('messagesSentTo', () => {
  it('rebuilds what a turn sent: the start, each earlier response and its tool results', () => {
    const state = runState(events);
    expect(messagesSentTo(state, 'agent/llm#1')).toEqual({
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Otters?' }],
    });
    expect(messagesSentTo(state, 'agent/llm#2')).toEqual({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Otters?' },
        ...turn1.responseMessages,
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_1_0',
              toolName: 'search',
              output: { type: 'json', value: ['river otter'] },
            },
            {
              type: 'tool-result',
              toolCallId: 'call_1_1',
              toolName: 'fetch',
              output: { type: 'error-text', value: 'offline' },
            },
          ],
        },
      ],
    });
    expect(messagesSentTo(state, 'agent')).toBeNull();
  });
});
