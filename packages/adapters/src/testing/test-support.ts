/**
 * For the testing module's tests: records real runs (the in-process runner with the real
 * executors: mock:echo, the code sandbox) in an in-memory store, to save as cases.
 */
import type { Fixtures, Flow, Json } from '@weft/engine';
import { validateFlow } from '@weft/engine';
import { type FlowSource, memoryFlowSource } from '../backends/flow-source.ts';
import { createExecutorRegistry } from '../executors/index.ts';
import { inProcessBackend } from '../inprocess/backend.ts';
import type { ApprovalDecider } from '../inprocess/host.ts';
import { InProcessRunner } from '../inprocess/runner.ts';
import { RunService } from '../service/run-service.ts';
import { openStore } from '../store/index.ts';
import type { RunStore } from '../store/types.ts';

export interface Recorder {
  store: RunStore;
  service: RunService;
  /** Starts a run and waits until it ends or parks; returns its id. */
  record(flow: Flow, input?: Json, fixtures?: Fixtures): Promise<string>;
  /** Waits until the run (started elsewhere, e.g. a replay) ends or parks. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export async function recorder(flows: FlowSource, decide?: ApprovalDecider): Promise<Recorder> {
  const store = await openStore({ url: ':memory:' });
  const executors = createExecutorRegistry();
  const backend = inProcessBackend(new InProcessRunner({ store, executors, flows, ...(decide ? { decide } : {}) }));
  const service = new RunService({ store, backends: [backend], flows });
  return {
    store,
    service,
    async record(flow, input = {}, fixtures) {
      const { runId } = await service.start({ flow, input, ...(fixtures ? { fixtures } : {}) });
      await backend.settled();
      return runId;
    },
    settled: () => backend.settled(),
    async close() {
      await service.close();
      executors.close?.();
      await store.close();
    },
  };
}

/** A validated flow from a document (throws with the problems). */
export function flowOf(doc: Record<string, unknown>): Flow {
  const result = validateFlow({ irVersion: 1, name: String(doc.id), ...doc });
  if (!result.ok) throw new Error(result.errors.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
  return result.flow;
}

/**
 * Prices an order: a model turn (mock:echo), a code step, an approval, and a transform that
 * gathers them: every kind of thing a case records or decides.
 */
export const pricingDoc = {
  id: 'pricing',
  input: {
    type: 'object',
    properties: { item: { type: 'string' }, qty: { type: 'number' } },
    required: ['item', 'qty'],
  },
  steps: [
    { id: 'ask', type: 'llm', model: 'mock:echo', prompt: 'price of {{ input.item }}' },
    { id: 'compute', type: 'code', source: 'return { total: args.qty * 3 };', args: { qty: '=input.qty' } },
    { id: 'gate', type: 'approval', prompt: 'sell {{ input.qty }} {{ input.item }}?' },
    {
      id: 'result',
      type: 'transform',
      value: {
        total: '=steps.compute.output.total',
        said: '=steps.ask.output.text',
        approvedBy: '=steps.gate.output.by',
      },
    },
  ],
  output: '=steps.result.output',
};

export const pricingInput = { item: 'tea', qty: 2 };

/** A flow source holding just these flows. */
export function sourceOf(...flows: Flow[]): FlowSource {
  return memoryFlowSource(flows);
}
