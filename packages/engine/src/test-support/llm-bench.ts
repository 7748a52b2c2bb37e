/** The llm step's test bench: host tools `add` and `boom`, an agent flow, and a recording host. */
import type { InterpretOptions } from '../interpreter/context.ts';
import type { ModelTurnInput, StepCall, ToolSpec } from '../interpreter/host.ts';
import { interpret } from '../interpreter/interpret.ts';
import { testFlow } from './flows.ts';
import { MemoryHost } from './memory-host.ts';
import { createExecutor, type ExecutorOptions, recordCalls } from './model.ts';

export const addSpec: Omit<ToolSpec, 'name'> = {
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
};
export const hostTools = { add: addSpec, boom: { description: 'Always fails', parameters: { type: 'object' } } };
export const tools: ExecutorOptions['tools'] = {
  add: (args) => {
    const { a, b } = args as { a: number; b: number };
    return a + b;
  },
  boom: () => {
    throw new Error('the tool broke');
  },
};

export function setup(executor: ExecutorOptions = {}) {
  const recorder = recordCalls(createExecutor({ tools, ...executor }));
  const host = new MemoryHost({ execute: recorder.execute });
  return { host, calls: recorder.calls };
}

export function agentFlow(step: Record<string, unknown> = {}) {
  return testFlow(
    [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'What is {{ input.q }}?', ...step }],
    {},
    { hostTools: Object.keys(hostTools) },
  );
}

export const run = (flow: ReturnType<typeof agentFlow>, host: MemoryHost, options: InterpretOptions = {}) =>
  interpret(flow, { q: '1+2' }, host, { hostTools, ...options });

export function modelInput(call: StepCall): ModelTurnInput {
  if (call.kind !== 'model-turn') throw new Error(`expected a model turn, got ${call.kind}`);
  return call.input;
}
