/** Which live call is a run's hand-off point: checkpoint in → hand off or not. */
import { describe, expect, it } from 'vitest';
import { type HandOffCandidate, isHandOffPoint } from './handoff.ts';

const cases: [at: string, candidate: HandOffCandidate, handsOff: boolean][] = [
  // first-tool-call: a host tool, an agent's tool call (and what a flow tool calls under it), a tool step
  ['first-tool-call', { id: 'search', kind: 'tool', stepType: 'tool' }, true],
  ['first-tool-call', { id: 'agent/tool#1.0', kind: 'tool', stepType: 'tool-call' }, true],
  ['first-tool-call', { id: 'agent/tool#2.1', kind: 'http' }, true],
  ['first-tool-call', { id: 'each[3]/agent/tool#1.0', kind: 'spawn' }, true],
  ['first-tool-call', { id: 'lookup', kind: 'code', stepType: 'tool' }, true],
  ['first-tool-call', { id: 'agent/tool#1.0/inner', kind: 'code' }, true],
  ['first-tool-call', { id: 'agent/llm#1', kind: 'model-turn', stepType: 'model-turn' }, false],
  ['first-tool-call', { id: 'fetch', kind: 'http', stepType: 'http' }, false],
  ['first-tool-call', { id: 'calc', kind: 'code' }, false],
  ['first-tool-call', { id: 'tool', kind: 'code' }, false],
  ['first-tool-call', { id: 'agent/toolbox#1', kind: 'code' }, false],
  // a step id: the step itself, or any checkpoint inside it, at any depth
  ['agent', { id: 'agent/llm#1', kind: 'model-turn' }, true],
  ['agent', { id: 'agent/tool#1.0', kind: 'tool' }, true],
  ['agent', { id: 'each[2]/agent/llm#3', kind: 'model-turn' }, true],
  ['each', { id: 'each[0]/pick', kind: 'code' }, true],
  ['pick', { id: 'each[0]/pick', kind: 'code' }, true],
  ['fetch', { id: 'fetch', kind: 'http' }, true],
  ['fetch', { id: 'fetcher', kind: 'http' }, false],
  ['fetch', { id: 'prefetch', kind: 'http' }, false],
  ['agent', { id: 'agent2/llm#1', kind: 'model-turn' }, false],
  ['llm', { id: 'agent/llm#1', kind: 'model-turn' }, false],
];

describe('isHandOffPoint', () => {
  it.each(cases)('at %s, %j → %s', (at, candidate, handsOff) => {
    expect(isHandOffPoint(at, candidate)).toBe(handsOff);
  });
});
