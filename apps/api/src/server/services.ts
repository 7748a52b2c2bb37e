/**
 * Everything a request needs, built once per server process: the store, the runner that
 * executes runs here, the live event bus, the logger. Routers reach them through the tRPC
 * context, so tests build the same services over a temp store and call routers directly.
 */

import type { ExternalBackend, ExternalBackendName } from '@weft/adapters/backends';
import { createExecutorRegistry, type HostTool } from '@weft/adapters/executors';
import { openInngestBackend } from '@weft/adapters/inngest';
import { InProcessRunner } from '@weft/adapters/inprocess';
import { openStore, type RunRecord, type RunStore } from '@weft/adapters/store';
import { openTemporalBackend } from '@weft/adapters/temporal';
import type { RunEvent } from '@weft/engine';
import type { Logger } from 'pino';
import { backendSettings } from '../backends.ts';
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
  /** The durable engines besides in-process this server can run on (see ../backends.ts for their settings). */
  backends: Map<ExternalBackendName, ExternalBackend>;
  close(): Promise<void>;
}

/**
 * External engines (Temporal, Inngest) write events and approval records straight to the store.
 * A worker or function in this process writes through this process's store, whose commits the
 * bus hears at once (`store.onEvents`); what a worker in another process wrote is found by
 * reading the active runs' events every 100 ms. The store-level feed moves the bookmark too, so
 * nothing is published twice. (Next: PostgreSQL NOTIFY from the store, and this loop goes.)
 */
function pollExternalRuns(backends: string[], store: RunStore, bus: EventBus, log: Logger): () => Promise<void> {
  const after = new Map<string, number>();
  const unfollow = store.onEvents((events) => {
    for (const event of events) after.set(event.runId, Math.max(after.get(event.runId) ?? 0, event.seq));
  });
  let stopped = false;
  const tick = async () => {
    const active: RunRecord[] = [];
    for (const backend of backends)
      active.push(...(await store.listRuns({ backend, status: ['running', 'waiting'], limit: 1000 })));
    const ids = new Set([...after.keys(), ...active.map((run) => run.id)]);
    const live = new Set(active.map((run) => run.id));
    for (const id of ids) {
      const events: RunEvent[] = await store.readEvents(id, after.get(id) ?? 0);
      if (events.length > 0) {
        after.set(id, events.at(-1)!.seq);
        bus.publish(events);
      } else if (!live.has(id)) after.delete(id);
      else if (!after.has(id)) after.set(id, 0);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await tick().catch((error: unknown) => log.warn({ err: error }, 'polling external runs failed'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return async () => {
    stopped = true;
    unfollow();
    await loop;
  };
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
  const bus = new EventBus(store, log, transport);
  try {
    await bus.start();
  } catch (error) {
    await runner.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  const backends = new Map<ExternalBackendName, ExternalBackend>();
  let stopPolling: (() => Promise<void>) | undefined;
  const settings = backendSettings(env);
  try {
    if (settings.temporal) {
      const temporal = await openTemporalBackend({
        ...settings.temporal,
        store,
        worker: { executors: createExecutorRegistry({ tools, env }), flows: storeFlowSource(store) },
      });
      backends.set('temporal', temporal);
      log.info(
        { address: settings.temporal.address, taskQueue: temporal.worker?.taskQueue },
        'temporal worker started',
      );
    }
    if (settings.inngest) {
      // Served at /api/inngest by the HTTP server, which syncs the app once it listens.
      const inngest = openInngestBackend({
        ...settings.inngest,
        store,
        serve: { store, executors: createExecutorRegistry({ tools, env }), flows: storeFlowSource(store), tools },
      });
      backends.set('inngest', inngest);
      log.info({ baseUrl: settings.inngest.baseUrl, dev: settings.inngest.isDev }, 'inngest function served');
    }
  } catch (error) {
    for (const backend of backends.values()) await backend.close();
    await bus.stop().catch(() => undefined);
    await runner.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  if (backends.size > 0) stopPolling = pollExternalRuns([...backends.keys()], store, bus, log);
  return {
    store,
    runner,
    bus,
    log,
    env,
    tools,
    backends,
    async close() {
      await stopPolling?.();
      for (const backend of backends.values()) await backend.close();
      await bus.stop();
      await runner.close();
      await store.close();
    },
  };
}
