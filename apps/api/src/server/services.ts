/**
 * Everything a request needs, built once per server process: the store, the runner that
 * executes runs here, the live event bus, the logger. Routers reach them through the tRPC
 * context, so tests build the same services over a temp store and call routers directly.
 */
import { createExecutorRegistry, type HostTool } from '@weft/adapters/executors';
import { InProcessRunner } from '@weft/adapters/inprocess';
import { openStore, type RunStore } from '@weft/adapters/store';
import type { Logger } from 'pino';
import { type BusTransport, EventBus, LocalTransport } from './events/bus.ts';
import { PgTransport } from './events/pg-transport.ts';
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
}

export interface ApiServices {
  store: RunStore;
  runner: InProcessRunner;
  bus: EventBus;
  log: Logger;
  env: Record<string, string | undefined>;
  /** Host-registered tools (their code runs in this process). */
  tools: Record<string, HostTool>;
  close(): Promise<void>;
}

export async function createServices(options: ServiceOptions = {}): Promise<ApiServices> {
  const env = options.env ?? process.env;
  const log = options.logger ?? createLogger(env);
  const store = await openStore({
    ...(options.databaseUrl ? { url: options.databaseUrl } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  const tools = options.tools ?? {};
  const runner = new InProcessRunner({
    store,
    executors: createExecutorRegistry({ tools, env }),
    flows: storeFlowSource(store),
    tools,
  });
  // PostgreSQL: several API processes may share the database, so events cross over LISTEN/NOTIFY.
  const transport: BusTransport =
    store.dialect === 'postgres' && options.databaseUrl
      ? new PgTransport({ url: options.databaseUrl, store, log })
      : new LocalTransport();
  const bus = new EventBus(store, runner, log, transport);
  try {
    await bus.start();
  } catch (error) {
    await runner.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  return {
    store,
    runner,
    bus,
    log,
    env,
    tools,
    async close() {
      await bus.stop();
      await runner.close();
      await store.close();
    },
  };
}
