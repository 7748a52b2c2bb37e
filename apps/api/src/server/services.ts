/**
 * Everything a request needs, built once per server process: the store, the runner that
 * executes runs here, the live event bus, the logger. Routers reach them through the tRPC
 * context, so tests build the same services over a temp store and call routers directly.
 */
import { createExecutorRegistry, type HostTool } from '@weft/adapters/executors';
import { InProcessRunner } from '@weft/adapters/inprocess';
import { openStore, type RunStore } from '@weft/adapters/store';
import { connectTemporal, startTemporalWorker, type TemporalWorkerHandle } from '@weft/adapters/temporal';
import type { RunEvent } from '@weft/engine';
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
  /** Set when TEMPORAL_ADDRESS is: the client, and the worker this process runs. */
  temporal?: { client: Awaited<ReturnType<typeof connectTemporal>>; worker: TemporalWorkerHandle };
  close(): Promise<void>;
}

/**
 * Temporal activities write events straight to the store, past the runner: every 100 ms the
 * events of active temporal runs are read and published on the bus (and an approval the
 * workflow asks for is recorded, so `approvals.list`/`decide` see it).
 */
function pollTemporalRuns(store: RunStore, bus: EventBus, log: Logger): () => Promise<void> {
  const after = new Map<string, number>();
  let stopped = false;
  const tick = async () => {
    const active = await store.listRuns({ backend: 'temporal', status: ['running', 'waiting'], limit: 1000 });
    const ids = new Set([...after.keys(), ...active.map((run) => run.id)]);
    const live = new Set(active.map((run) => run.id));
    for (const id of ids) {
      const events: RunEvent[] = await store.readEvents(id, after.get(id) ?? 0);
      for (const event of events) {
        if (event.type === 'approval.requested') {
          await store.requestApproval({
            runId: id,
            stepId: event.stepId,
            prompt: event.prompt,
            deadline: event.timeoutMs === undefined ? null : event.at + event.timeoutMs,
            now: event.at,
          });
        } else if (event.type === 'approval.resolved') {
          await store.resolveApproval(id, event.stepId, {
            status: event.timedOut ? 'timed-out' : event.approved ? 'approved' : 'rejected',
            by: event.by,
            comment: event.comment,
            at: event.at,
          });
        }
      }
      if (events.length > 0) {
        after.set(id, events.at(-1)!.seq);
        bus.publish(events);
      } else if (!live.has(id)) after.delete(id);
      else if (!after.has(id)) after.set(id, 0);
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await tick().catch((error: unknown) => log.warn({ err: error }, 'polling temporal runs failed'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return async () => {
    stopped = true;
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
  const bus = new EventBus(store, runner, log, transport);
  try {
    await bus.start();
  } catch (error) {
    await runner.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  let temporal: ApiServices['temporal'];
  let stopPolling: (() => Promise<void>) | undefined;
  if (env.TEMPORAL_ADDRESS) {
    const address = env.TEMPORAL_ADDRESS;
    const client = await connectTemporal({ address });
    const worker = await startTemporalWorker({
      address,
      store,
      executors: createExecutorRegistry({ tools, env }),
      flows: storeFlowSource(store),
    });
    temporal = { client, worker };
    stopPolling = pollTemporalRuns(store, bus, log);
    log.info({ address, taskQueue: worker.taskQueue }, 'temporal worker started');
  }
  return {
    store,
    runner,
    bus,
    log,
    env,
    tools,
    ...(temporal ? { temporal } : {}),
    async close() {
      await stopPolling?.();
      if (temporal) {
        await temporal.worker.shutdown().catch(() => undefined);
        await temporal.client.connection.close().catch(() => undefined);
      }
      await bus.stop();
      await runner.close();
      await store.close();
    },
  };
}
