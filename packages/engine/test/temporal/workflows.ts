/**
 * A Temporal workflow that runs a Weft flow with `interpret` over a host made of plain
 * in-workflow functions (no activities), used to prove the interpreter bundles for — and
 * stays inside the rules of — Temporal's deterministic workflow sandbox.
 */
import type { StepCall, StepHost } from '../../src/interpreter/host.ts';
import { interpret } from '../../src/interpreter/interpret.ts';
import type { Flow } from '../../src/ir/flow.ts';
import type { Json } from '../../src/json.ts';

const flow = {
  irVersion: 1,
  id: 'bundled',
  name: 'Bundled',
  steps: [
    { id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'Hello {{ input.name }}' },
    { id: 'shape', type: 'transform', value: { greeting: '=steps.ask.output.text', n: '=len(input.name)' } },
    { id: 'nap', type: 'sleep', duration: '1s' },
  ],
  output: '=steps.shape.output',
} as unknown as Flow;

function answer(call: StepCall): Json {
  if (call.kind !== 'model-turn') return null;
  const last = call.input.messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : '';
  return {
    text,
    toolCalls: [],
    responseMessages: [{ role: 'assistant', content: [{ type: 'text', text }] }],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    finishReason: 'stop',
  };
}

export async function weftFlow(input: Json): Promise<Json> {
  const host: StepHost = {
    run: async (_id, call) => answer(call),
    waitForApproval: async () => ({ kind: 'timed-out', at: '1970-01-01T00:00:00.000Z' }),
    sleep: async () => ({ until: '1970-01-01T00:00:01.000Z' }),
    spawn: async () => null,
    emit: () => undefined,
  };
  return interpret(flow, input, host);
}
