/**
 * The composition root: what executes and steers runs, built once per process for the API
 * server (`createServices`) and for each CLI command alike. It opens the store, builds the
 * executor registry (model providers from the environment and configuration), the flow
 * source `spawn` reads, the in-process runner and whichever external engines are asked for,
 * and puts one `RunService` over all of them.
 */
import type { ExternalBackendName, FlowSource, RunBackend } from '@weft/adapters/backends';
import { createExecutorRegistry, type ExecutorRegistry, type HostTool, hostToolSpecs } from '@weft/adapters/executors';
import { openInngestBackend } from '@weft/adapters/inngest';
import {
  type ApprovalDecider,
  type InProcessBackend,
  type InProcessBackendOptions,
  InProcessRunner,
  inProcessBackend,
} from '@weft/adapters/inprocess';
import { RunService } from '@weft/adapters/service';
import { openStore, type RunStore } from '@weft/adapters/store';
import { openTemporalBackend } from '@weft/adapters/temporal';
import { BACKEND_SETTING, type BackendSettings, backendSettings } from './backends.ts';

/** What an external engine's opener gets from the runtime. */
export interface ExternalDeps {
  env: Record<string, string | undefined>;
  store: RunStore;
  flows: FlowSource;
  settings: BackendSettings;
  tools: Record<string, HostTool>;
  /** A fresh registry (each engine's workers get their own). */
  executors: () => ExecutorRegistry;
}

export type OpenExternal = (name: ExternalBackendName, deps: ExternalDeps) => Promise<RunBackend>;

export interface RuntimeOptions {
  env?: Record<string, string | undefined>;
  /** An open store to use (and close); otherwise one from `databaseUrl` / `dataDir`. */
  store?: RunStore;
  databaseUrl?: string;
  dataDir?: string;
  tools?: Record<string, HostTool>;
  /** Where `spawn` and flow tools find flows (the API's flow table, the CLI's folder). */
  flows: (store: RunStore) => FlowSource | Promise<FlowSource>;
  /** Asked inline when an in-process run reaches an approval (the CLI's --approve, its prompt). */
  decide?: ApprovalDecider;
  maxInputBytes?: number;
  /** The external engines to open besides in-process (each must be configured). */
  external?: readonly ExternalBackendName[];
  /** How to open one; the default serves it from this process (a Temporal worker, the Inngest function). */
  openExternal?: OpenExternal;
  onExecuted?: InProcessBackendOptions['onExecuted'];
}

export interface Runtime {
  env: Record<string, string | undefined>;
  store: RunStore;
  runner: InProcessRunner;
  inprocess: InProcessBackend;
  service: RunService;
  /** The opened backends by name, in-process first. */
  backends: ReadonlyMap<string, RunBackend>;
  close(): Promise<void>;
}

export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const env = options.env ?? process.env;
  const store =
    options.store ??
    (await openStore({
      ...(options.databaseUrl ? { url: options.databaseUrl } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }));
  const tools = options.tools ?? {};
  const executors = () => createExecutorRegistry({ tools, env });
  let flows: FlowSource;
  try {
    flows = await options.flows(store);
  } catch (error) {
    if (!options.store) await store.close().catch(() => undefined);
    throw error;
  }
  // Late-bound: the service that knows the target engines is built after the runner.
  let service: RunService | undefined;
  const runner = new InProcessRunner({
    store,
    handOff: async (to, run) => {
      if (!service) throw new Error(`run ${run.runId} hands off to ${to} before the runtime is open`);
      // Tried again in the background while the engine is unreachable (service/engine-starts.ts).
      await service.startHandedOff(to, run);
    },
    executors: executors(),
    flows,
    tools,
    ...(options.decide ? { decide: options.decide } : {}),
    ...(options.maxInputBytes !== undefined ? { maxInputBytes: options.maxInputBytes } : {}),
  });
  const inprocess = inProcessBackend(runner, options.onExecuted ? { onExecuted: options.onExecuted } : {});
  const backends: RunBackend[] = [inprocess];
  const settings = backendSettings(env);
  const open = options.openExternal ?? openServedBackend;
  try {
    for (const name of options.external ?? [])
      backends.push(await open(name, { env, store, flows, settings, tools, executors }));
  } catch (error) {
    for (const backend of backends.reverse()) await backend.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  service = new RunService({
    store,
    backends,
    flows,
    hostTools: Object.keys(tools),
    ...(options.maxInputBytes !== undefined ? { maxInputBytes: options.maxInputBytes } : {}),
    unavailableHint: (name) =>
      name in BACKEND_SETTING
        ? `${BACKEND_SETTING[name as ExternalBackendName]} is not set on the server`
        : 'no such backend',
  });
  return {
    env,
    store,
    runner,
    inprocess,
    service,
    backends: new Map(backends.map((backend) => [backend.name, backend])),
    async close() {
      await service.close();
      await store.close().catch(() => undefined);
    },
  };
}

/**
 * The server's way: a Temporal worker in this process (unless WEFT_TEMPORAL_WORKER=external:
 * `weft worker temporal` processes run them); the Inngest function served by the HTTP server.
 */
export const openServedBackend: OpenExternal = async (name, { env, store, flows, settings, tools, executors }) => {
  if (name === 'temporal') {
    if (!settings.temporal) throw new Error(`temporal is not configured: set ${BACKEND_SETTING.temporal}`);
    return openTemporalBackend({
      ...settings.temporal,
      store,
      hostTools: hostToolSpecs(tools),
      ...(env.WEFT_TEMPORAL_WORKER === 'external' ? {} : { worker: { executors: executors(), flows } }),
    });
  }
  if (!settings.inngest) throw new Error(`inngest is not configured: set ${BACKEND_SETTING.inngest}`);
  return openInngestBackend({ ...settings.inngest, store, serve: { store, executors: executors(), flows, tools } });
};
