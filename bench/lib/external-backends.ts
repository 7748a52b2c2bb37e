/**
 * The external engines bench/backends runs the scenarios on, each set up for real on loopback
 * (Temporal: the dev server and one worker in this process; Inngest: the dev server and the
 * generic function served from this process) over its own SQLite store.
 */

import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { memoryFlowSource } from '../../packages/adapters/src/backends/flow-source.ts';
import { createExecutorRegistry, type HostTool } from '../../packages/adapters/src/executors/index.ts';
import { INNGEST_SERVE_PATH, openInngestBackend } from '../../packages/adapters/src/inngest/backend.ts';
import { inngestBinary, startInngestDevServer } from '../../packages/adapters/src/inngest/dev-server.ts';
import { RunService } from '../../packages/adapters/src/service/run-service.ts';
import { openSqliteStore, type RunStore } from '../../packages/adapters/src/store/index.ts';
import { openTemporalBackend } from '../../packages/adapters/src/temporal/backend.ts';
import { awaitTemporalRun } from '../../packages/adapters/src/temporal/client.ts';
import { startTemporalDevServer, temporalBinary } from '../../packages/adapters/src/temporal/dev-server.ts';
import { startTemporalWorker, weftWorkflowBundle } from '../../packages/adapters/src/temporal/worker.ts';
import type { Fixtures, Flow, ToolSpec } from '../../packages/engine/src/index.ts';
import { isFinalStatus } from '../../packages/engine/src/index.ts';
import { quietTemporalRuntime } from './temporal-runtime.ts';

export interface BenchBackend {
  name: 'temporal' | 'inngest';
  label: string;
  store: RunStore;
  /** What it took to be ready (server start, bundling), for the notes. */
  setupMs: number;
  /** The server's own version line. */
  version: string;
  /** Where the dev server listens (Temporal: host:port; Inngest: its URL), for the native program. */
  server: string;
  /** Starts a run and resolves with its id once it has ended. */
  run(flow: Flow, fixtures: Fixtures | undefined): Promise<string>;
  close(): Promise<void>;
}

interface Setup {
  dir: string;
  hostTools: Record<string, HostTool>;
  hostToolSpecs: Record<string, Omit<ToolSpec, 'name'>>;
}

function versionOf(binary: string, args: string[]): string {
  try {
    return execFileSync(binary, args, { encoding: 'utf8' }).trim().split('\n')[0] ?? '?';
  } catch {
    return '?';
  }
}

export async function openTemporal({ dir, hostTools, hostToolSpecs }: Setup): Promise<BenchBackend> {
  await quietTemporalRuntime();
  const startedAt = performance.now();
  const [server] = await Promise.all([startTemporalDevServer(), weftWorkflowBundle()]);
  const setupMs = performance.now() - startedAt;
  const store = await openSqliteStore(join(dir, 'temporal.db'));
  const taskQueue = `weft-bench-${process.pid}`;
  const worker = await startTemporalWorker({
    address: server.address,
    taskQueue,
    store,
    executors: createExecutorRegistry({ tools: hostTools }),
    flows: memoryFlowSource([]),
  });
  const backend = await openTemporalBackend({ address: server.address, taskQueue, store, hostTools: hostToolSpecs });
  const service = new RunService({ store, backends: [backend], hostTools: Object.keys(hostTools) });
  return {
    name: 'temporal',
    label: 'temporal',
    store,
    setupMs,
    version: versionOf(await temporalBinary(), ['--version']),
    server: server.address,
    async run(flow, fixtures) {
      const { runId } = await service.start({ flow, input: {}, ...(fixtures ? { fixtures } : {}) });
      await awaitTemporalRun(backend.client, runId);
      return runId;
    },
    async close() {
      await worker.shutdown();
      await service.close();
      await server.stop();
      await store.close();
    },
  };
}

/** How often the bench looks at the run row once its end event is stored (the row is updated right after). */
const INNGEST_POLL_MS = 1;
const RUN_END_EVENTS = new Set(['run.completed', 'run.failed', 'run.cancelled']);

export async function openInngest({ dir, hostTools }: Setup): Promise<BenchBackend> {
  const startedAt = performance.now();
  const server = await startInngestDevServer();
  const store = await openSqliteStore(join(dir, 'inngest.db'));
  const backend = openInngestBackend({
    baseUrl: server.url,
    isDev: true,
    store,
    serve: {
      store,
      executors: createExecutorRegistry({ tools: hostTools }),
      flows: memoryFlowSource([]),
      tools: hostTools,
    },
  });
  const http: Server = createServer((req, res) => {
    if (req.url?.startsWith(INNGEST_SERVE_PATH)) backend.handler?.(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await backend.register(`http://127.0.0.1:${address.port}`);
  const setupMs = performance.now() - startedAt;
  const service = new RunService({ store, backends: [backend], hostTools: Object.keys(hostTools) });
  // The end of a run is heard from the store's event feed, not by reading the run row over and
  // over: the function is served from this process, and polling would take CPU from it.
  const ended = new Set<string>();
  const waiting = new Map<string, () => void>();
  const unsubscribe = store.onEvents((events) => {
    for (const event of events) {
      if (!RUN_END_EVENTS.has(event.type)) continue;
      ended.add(event.runId);
      waiting.get(event.runId)?.();
    }
  });
  return {
    name: 'inngest',
    label: 'inngest',
    store,
    setupMs,
    version: `inngest dev server ${(await inngestBinary()).split('inngest-').at(-1)}`,
    server: server.url,
    async run(flow, fixtures) {
      const { runId } = await service.start({ flow, input: {}, ...(fixtures ? { fixtures } : {}) });
      if (!ended.has(runId)) await new Promise<void>((resolve) => waiting.set(runId, resolve));
      waiting.delete(runId);
      ended.delete(runId);
      for (;;) {
        const run = await store.getRun(runId);
        if (run && isFinalStatus(run.status)) return runId;
        await new Promise((resolve) => setTimeout(resolve, INNGEST_POLL_MS));
      }
    },
    async close() {
      unsubscribe();
      await service.close();
      await new Promise((resolve) => http.close(resolve));
      await server.stop();
      await store.close();
    },
  };
}
