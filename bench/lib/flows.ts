/**
 * The flows the benchmark runs, and the no-op tool they call. Every checkpointed call is a
 * host-registered tool that returns at once, so what is measured is the engine, the runner and
 * the journal, never the work.
 */
import type { HostTool } from '../../packages/adapters/src/executors/index.ts';
import type { Fixtures, Json } from '../../packages/engine/src/index.ts';

export const NOOP_TOOL = 'noop';

export const hostTools: Record<string, HostTool> = {
  [NOOP_TOOL]: { description: 'does nothing', parameters: { type: 'object' }, execute: () => null },
};

/** What interpret() needs to know about host tools (their specs, not their code). */
export const hostToolSpecs = { [NOOP_TOOL]: { description: 'does nothing', parameters: { type: 'object' } } };

/** `steps` sequential `tool` steps, each one checkpointed call. */
export function sequentialFlow(steps: number): Json {
  return {
    irVersion: 1,
    id: `bench-seq-${steps}`,
    name: `${steps} sequential no-op steps`,
    steps: Array.from({ length: steps }, (_, i) => ({ id: `s${i}`, type: 'tool', tool: NOOP_TOOL })),
  };
}

/** One `parallel` step with `width` branches of one no-op `tool` step each. */
export function fanOutFlow(width: number): Json {
  const branches: Record<string, Json> = {};
  for (let i = 0; i < width; i++) branches[`b${i}`] = [{ id: `t${i}`, type: 'tool', tool: NOOP_TOOL }];
  return {
    irVersion: 1,
    id: `bench-fan-${width}`,
    name: `${width}-wide fan-out`,
    steps: [{ id: 'fan', type: 'parallel', branches }],
  };
}

export const AGENT_STEP = 'agent';

/** An `llm` agent loop of `turns` model turns on the mock provider, offered the no-op tool. */
export function agentFlow(turns: number): Json {
  return {
    irVersion: 1,
    id: `bench-agent-${turns}`,
    name: `${turns}-turn agent`,
    steps: [{ id: AGENT_STEP, type: 'llm', model: 'mock:echo', prompt: 'go', tools: [NOOP_TOOL], maxSteps: turns }],
  };
}

/** Recorded turns: the model calls the no-op tool `turns - 1` times, then answers. */
export function agentFixtures(turns: number): Fixtures {
  const toolTurn = { toolCalls: [{ tool: NOOP_TOOL, args: {} }] };
  return { [AGENT_STEP]: [...Array.from({ length: turns - 1 }, () => toolTurn), { text: 'done' }] };
}

export const APPROVAL_STEP = 'ok';

/** One checkpointed step, then an approval the run parks at. */
export function parkingFlow(): Json {
  return {
    irVersion: 1,
    id: 'bench-park',
    name: 'parks at an approval',
    steps: [
      { id: 'work', type: 'tool', tool: NOOP_TOOL },
      { id: APPROVAL_STEP, type: 'approval', prompt: 'go?' },
    ],
  };
}
