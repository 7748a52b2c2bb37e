/**
 * Every backend runs the conformance suite through the product's own path: `RunService` over
 * the backend's `RunBackend`, exactly as the API's routers and the CLI drive it. The service
 * validates and records each run and hands it over; decisions go through `service.decide`
 * (recorded first, one wins, then delivered); the end is read from the store, woken by its
 * event feed.
 */
import type { BackendName, ExternalBackendName, RunBackend } from '../src/backends/run-backend.ts';
import { createExecutorRegistry } from '../src/executors/index.ts';
import { inProcessBackend } from '../src/inprocess/backend.ts';
import { InProcessRunner, type RunnerOptions } from '../src/inprocess/index.ts';
import { RunService } from '../src/service/run-service.ts';
import { waitForEnd } from '../src/store/follow-run.ts';
import type { RunStore } from '../src/store/types.ts';
import type { ConformanceAdapter } from './adapter.ts';
import { mutableFlowSource } from './mutable-flows.ts';

const END_TIMEOUT_MS = 15_000;

export interface RunServiceAdapterOptions {
  name: string;
  store: RunStore;
  /** The backend under test, built over the store and the flow source the suite fills per case. */
  backend: (flows: ReturnType<typeof mutableFlowSource>) => Promise<RunBackend> | RunBackend;
  /** Frees what the caller opened, after the service and the store are closed. */
  cleanup?: () => Promise<void> | void;
  /** See ConformanceAdapter.engineCalls. */
  engineCalls?: (runId: string) => Promise<string[]>;
}

export function runServiceConformanceAdapter(options: RunServiceAdapterOptions): () => Promise<ConformanceAdapter> {
  return async () => {
    const { store } = options;
    const flows = mutableFlowSource();
    const backend = await options.backend(flows);
    // Beside an external engine, the in-process runner a hand-off starts on (runtime.ts's wiring).
    const beside: RunBackend | undefined =
      backend.name === 'inprocess'
        ? undefined
        : inProcessBackend(
            new InProcessRunner({
              store,
              executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }),
              flows,
              handOff: (to, run) => service.backend(to).start(run),
            }),
          );
    const service: RunService = new RunService({ store, backends: beside ? [backend, beside] : [backend], flows });
    const name: BackendName = backend.name;
    return {
      name: options.name,
      async start({ flow, flows: corpus, input, fixtures }) {
        flows.set(corpus);
        return service.start({ flow, input, fixtures, backend: name });
      },
      ...(beside
        ? {
            async startInProcess({ flow, flows: corpus, input, fixtures, handOffAt }) {
              flows.set(corpus);
              const to = name as ExternalBackendName;
              return service.start({
                flow,
                input,
                fixtures,
                backend: 'inprocess',
                ...(handOffAt ? { handoff: { to, at: handOffAt } } : {}),
              });
            },
          }
        : {}),
      async decide(runId, stepId, decision) {
        await service.decide(runId, stepId, {
          approved: decision.approved,
          by: decision.by ?? null,
          comment: decision.comment ?? null,
        });
      },
      async waitForEnd(runId) {
        if (!(await store.getRun(runId))) throw new Error(`unknown run ${runId}`);
        const run = await waitForEnd(store, runId, END_TIMEOUT_MS);
        if (!run) throw new Error(await stuck(store, runId));
        return { status: run.status, output: run.output, error: run.error };
      },
      events: (runId) => store.readEvents(runId),
      replay(runId, { current, ...request }) {
        if (current) flows.set(current);
        return service.replay(runId, request);
      },
      ...(options.engineCalls ? { engineCalls: options.engineCalls } : {}),
      async close() {
        await service.close();
        await store.close();
        await options.cleanup?.();
      },
    };
  };
}

/** The in-process runner as the backend; `runner` adds options (e.g. what interprets a flow). */
export function inProcessUnderTest(
  store: RunStore,
  runner: Partial<Pick<RunnerOptions, 'interpret'>> = {},
): RunServiceAdapterOptions['backend'] {
  return (flows) =>
    inProcessBackend(
      new InProcessRunner({
        store,
        executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }),
        flows,
        ...runner,
      }),
    );
}

async function stuck(store: RunStore, runId: string): Promise<string> {
  const lines: string[] = [];
  const root = await store.getRun(runId);
  for (const run of [root, ...(await store.listRuns({ parentRunId: runId }))]) {
    if (!run) continue;
    lines.push(
      `${run.id} ${run.status}`,
      ...(await store.readEvents(run.id)).slice(-3).map((event) => JSON.stringify(event).slice(0, 300)),
    );
  }
  return `run ${runId} did not end within ${END_TIMEOUT_MS / 1000} s; last events:\n${lines.join('\n')}`;
}
