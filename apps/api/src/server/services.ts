/**
 * Everything a request needs, built once per server process (over the composition root,
 * ../runtime.ts): the store, the run service, the live event bus, the logger. Routers reach them through the tRPC
 * context, so tests build the same services over a temp store and call routers directly.
 */

import { resolve } from 'node:path';
import type { RunBackend } from '@weft/adapters/backends';
import type { HostTool } from '@weft/adapters/executors';
import type { InProcessRunner } from '@weft/adapters/inprocess';
import type { RunService } from '@weft/adapters/service';
import type { RunStore } from '@weft/adapters/store';
import { DEFAULT_TESTS_DIR } from '@weft/adapters/testing';
import type { Logger } from 'pino';
import { backendSettings, configuredBackends } from '../backends.ts';
import { openRuntime } from '../runtime.ts';
import { EventBus } from './events/bus.ts';
import { DEFAULT_EXAMPLES_DIR } from './examples/catalog.ts';
import { storeFlowSource } from './flow-source.ts';
import { createLogger } from './logger.ts';

export interface ServiceOptions {
  /** `postgres://…` for PostgreSQL; otherwise SQLite under `dataDir`. */
  databaseUrl?: string;
  dataDir?: string;
  /** Environment for model providers and limits (defaults to process.env). */
  env?: Record<string, string | undefined>;
  tools?: Record<string, HostTool>;
  logger?: Logger;
  /** Where `tests.*` keeps test cases; default WEFT_TESTS_DIR, else `tests/` under the working directory. */
  testsDir?: string;
  /** The example flows the gallery shows; default WEFT_EXAMPLES_DIR, else the repository's `examples/`. */
  examplesDir?: string;
}

export interface ApiServices {
  store: RunStore;
  /** The one place runs are created and steered (validate, record, hand over, decide, cancel, resume). */
  runs: RunService;
  /** This process's in-process runner (start-up recovery). */
  runner: InProcessRunner;
  bus: EventBus;
  log: Logger;
  env: Record<string, string | undefined>;
  /** Host-registered tools (their code runs in this process). */
  tools: Record<string, HostTool>;
  /** The engines this server hands runs to, in-process first (see ../runtime.ts). */
  backends: ReadonlyMap<string, RunBackend>;
  /** The folder of test cases (runs saved as tests), absolute. */
  testsDir: string;
  /** The folder of example flows (the gallery), absolute. */
  examplesDir: string;
  close(): Promise<void>;
}

export async function createServices(options: ServiceOptions = {}): Promise<ApiServices> {
  const env = options.env ?? process.env;
  const log = options.logger ?? createLogger(env);
  const tools = options.tools ?? {};
  const runtime = await openRuntime({
    env,
    tools,
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    flows: storeFlowSource,
    external: configuredBackends(env),
    onExecuted: (runId, result) => {
      if ('outcome' in result) log.info({ runId, status: result.outcome.status }, 'run execution ended');
      else if ('busy' in result) log.info({ runId, reason: result.busy }, 'run not executed here');
      else log.error({ err: result.error, runId }, 'run execution failed');
    },
  });
  const { store } = runtime;
  const settings = backendSettings(env);
  if (runtime.backends.has('temporal')) log.info({ address: settings.temporal?.address }, 'temporal worker started');
  if (runtime.backends.has('inngest'))
    log.info({ baseUrl: settings.inngest?.baseUrl, dev: settings.inngest?.isDev }, 'inngest function served');
  // Every commit to the database reaches the bus through the store's feed, whichever process
  // made it (PostgreSQL: LISTEN/NOTIFY; SQLite: the write-ahead log), so nothing polls.
  const bus = new EventBus(store, log);
  try {
    await bus.start();
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return {
    store,
    runs: runtime.service,
    runner: runtime.runner,
    bus,
    log,
    env,
    tools,
    backends: runtime.backends,
    testsDir: resolve(options.testsDir ?? (env.WEFT_TESTS_DIR || DEFAULT_TESTS_DIR)),
    examplesDir: resolve(options.examplesDir ?? (env.WEFT_EXAMPLES_DIR || DEFAULT_EXAMPLES_DIR)),
    async close() {
      await bus.stop();
      await runtime.close();
    },
  };
}
