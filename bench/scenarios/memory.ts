/**
 * Rows 1 and 5 (memory): the interpreter alone, over the engine's in-memory StepHost. Nothing
 * is written anywhere; what remains is the cost of walking the IR, resolving inputs, emitting
 * events, hashing calls and keeping the in-memory journal.
 */
import { createExecutorRegistry } from '../../packages/adapters/src/executors/index.ts';
import { type Flow, interpret, type Json, validateFlow } from '../../packages/engine/src/index.ts';
import { MemoryHost } from '../../packages/engine/src/test-support/memory-host.ts';
import type { BenchContext } from '../lib/context.ts';
import { agentFixtures, agentFlow, hostToolSpecs, hostTools, NOOP_TOOL, sequentialFlow } from '../lib/flows.ts';
import { noop, sample, timeMs } from '../lib/measure.ts';
import type { Row } from '../lib/table.ts';

/** Per checkpointed step, the in-memory target (for scale: Mastra ~700 µs, LangGraph JS ~1 ms). */
export const MEMORY_OVERHEAD_TARGET_US = 20;

export function validated(doc: Json): Flow {
  const result = validateFlow(doc, { hostTools: [NOOP_TOOL] });
  if (!result.ok) throw new Error(`bench flow is invalid: ${JSON.stringify(result.errors)}`);
  return result.flow;
}

export async function sequentialInMemory(ctx: BenchContext): Promise<Row> {
  const { steps } = ctx.sizes;
  const flow = validated(sequentialFlow(steps));
  const weft = await sample(ctx.plan, async () => {
    // A no-op checkpointed call, answered at once: only the engine's own work is left.
    const host = new MemoryHost({ execute: () => null });
    const ms = await timeMs(() => interpret(flow, {}, host, { hostTools: hostToolSpecs }));
    if (host.journal.size !== steps) throw new Error(`expected ${steps} journaled steps, got ${host.journal.size}`);
    return (ms * 1000) / steps;
  });
  const raw = await sample(ctx.plan, async () => {
    const ms = await timeMs(async () => {
      for (let i = 0; i < steps; i++) await noop(i);
    });
    return (ms * 1000) / steps;
  });
  return {
    id: '1',
    what: `${steps} sequential no-op steps, in memory`,
    unit: 'µs/step',
    weft,
    raw,
    target: { kind: 'overhead', max: MEMORY_OVERHEAD_TARGET_US },
  };
}

export async function agentInMemory(ctx: BenchContext): Promise<Row> {
  const { turns } = ctx.sizes;
  const flow = validated(agentFlow(turns));
  const fixtures = agentFixtures(turns);
  // The same executors the runner uses: the fixture turn and the host tool, nothing mocked away.
  const registry = createExecutorRegistry({ tools: hostTools });
  const signal = new AbortController().signal;
  const weft = await sample(ctx.plan, async () => {
    const host = new MemoryHost({
      execute: (call, stepId) => registry.execute(call, { signal, runId: 'bench', stepId, emitDelta: () => {} }),
    });
    let output: Json = null;
    const ms = await timeMs(async () => {
      output = await interpret(flow, {}, host, { fixtures, hostTools: hostToolSpecs });
    });
    checkAgentOutput(output, turns);
    return (ms * 1000) / turns;
  });
  // By hand: per turn, await the model, then await the tool.
  const raw = await sample(ctx.plan, async () => {
    const ms = await timeMs(async () => {
      for (let turn = 0; turn < turns; turn++) {
        await noop(turn);
        await noop(turn);
      }
    });
    return (ms * 1000) / turns;
  });
  return {
    id: '5a',
    what: `${turns}-turn agent loop (mock model), in memory`,
    unit: 'µs/turn',
    weft,
    raw,
    // A turn is two checkpointed calls (model + tool): twice row 1's budget.
    target: { kind: 'overhead', max: 2 * MEMORY_OVERHEAD_TARGET_US },
    targetNote: '(2 calls × row 1)',
  };
}

export function checkAgentOutput(output: Json, turns: number): void {
  const result = output as { text?: unknown; toolCalls?: unknown[] } | null;
  if (result?.text !== 'done' || result.toolCalls?.length !== turns - 1) {
    throw new Error(`the agent did not run ${turns} turns: ${JSON.stringify(output).slice(0, 200)}`);
  }
}
