/**
 * The real Temporal dev server for tests: `temporal server start-dev --headless` on loopback,
 * free ports, an in-memory database, stopped with SIGTERM (then SIGKILL). The binary is built
 * once from the Go module proxy by scripts/ensure-temporal.sh and cached under .tools/bin.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import type { Json } from '@weft/engine';
import { freePort, startDevProcess, withFreshPortsOnClash } from '../backends/dev-process.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const ENSURE_SCRIPT = `${ROOT}scripts/ensure-temporal.sh`;

/** The cached binary (TEMPORAL_CLI overrides); built by ensure-temporal.sh when missing. */
export async function temporalBinary(): Promise<string> {
  const override = process.env.TEMPORAL_CLI;
  if (override) return override;
  const cached = `${ROOT}.tools/bin/temporal`;
  if (existsSync(cached)) return cached;
  const { stdout } = await promisify(execFile)('bash', [ENSURE_SCRIPT], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim().split('\n').at(-1) ?? cached;
}

export interface TemporalDevServer {
  /** host:port of the frontend (gRPC). */
  readonly address: string;
  readonly namespace: string;
  stop(): Promise<void>;
}

/**
 * Server settings (dynamic config) that make a step cheaper without weakening any guarantee.
 * Eager activity execution: a workflow task that schedules an activity on its own task queue
 * gets the activity task back in the completion's response when the worker has a free slot (the
 * TS SDK asks for up to 3 per workflow task, `maxEagerActivityReservationsPerWorkflowTask`),
 * instead of the activity going through matching to a poller. The server's default is off;
 * on, a sequential native activity takes ~40 ms here instead of ~90. (One partition per task
 * queue, `matching.numTaskqueue{Read,Write}Partitions=1`, measured no different: left default.)
 */
export const FAST_DYNAMIC_CONFIG: Readonly<Record<string, Json>> = {
  'system.enableActivityEagerExecution': true,
};

/**
 * The `temporal server start-dev` arguments for a loopback server on `port`; the HTTP and
 * metrics ports (and the UI port when given) must be free too. Shared by the tests and by
 * `weft backend up temporal`, so both start the same server, with FAST_DYNAMIC_CONFIG.
 */
export async function devServerArgs(options: {
  port: number;
  uiPort?: number;
  /** Serve the Temporal Web UI on `uiPort` (tests run headless). */
  ui?: boolean;
  dbFile?: string;
  logLevel: 'error' | 'warn';
}): Promise<string[]> {
  return [
    'server',
    'start-dev',
    ...(options.ui ? [] : ['--headless']),
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    ...(options.uiPort === undefined ? [] : ['--ui-port', String(options.uiPort)]),
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(await freePort()),
    ...(options.dbFile === undefined ? [] : ['--db-filename', options.dbFile]),
    '--log-level',
    options.logLevel,
    ...Object.entries(FAST_DYNAMIC_CONFIG).flatMap(([key, value]) => [
      '--dynamic-config-value',
      `${key}=${JSON.stringify(value)}`,
    ]),
  ];
}

export async function startTemporalDevServer(options: { startTimeoutMs?: number } = {}): Promise<TemporalDevServer> {
  return withFreshPortsOnClash(() => startOnFreePorts(options));
}

async function startOnFreePorts(options: { startTimeoutMs?: number }): Promise<TemporalDevServer> {
  const [port, uiPort] = [await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const namespace = 'default';
  const server = await startDevProcess({
    name: `temporal server on ${address}`,
    binary: await temporalBinary(),
    args: await devServerArgs({ port, uiPort, logLevel: 'error' }),
    timeoutMs: options.startTimeoutMs ?? 60_000,
    async ready() {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
      } finally {
        await connection.close();
      }
    },
  });
  return { address, namespace, stop: () => server.stop() };
}
