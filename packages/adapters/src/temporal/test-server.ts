/**
 * The real Temporal dev server for tests: `temporal server start-dev --headless` on loopback,
 * free ports, an in-memory database, stopped with SIGTERM (then SIGKILL). The binary is built
 * once from the Go module proxy by scripts/ensure-temporal.sh and cached under .tools/bin.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';

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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The `temporal server start-dev` arguments for a loopback server on `port`; the HTTP and
 * metrics ports (and the UI port when given) must be free too. Shared by the tests and by
 * `weft backend up temporal`, so both start the same server.
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
  ];
}

export async function startTemporalDevServer(options: { startTimeoutMs?: number } = {}): Promise<TemporalDevServer> {
  const binary = await temporalBinary();
  const [port, uiPort] = [await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const namespace = 'default';
  const child = spawn(binary, await devServerArgs({ port, uiPort, logLevel: 'error' }), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitReady(address, namespace, options.startTimeoutMs ?? 60_000, exited, () => stderr);
  } catch (error) {
    await stop(child, exited);
    throw error;
  }
  return { address, namespace, stop: () => stop(child, exited) };
}

async function waitReady(
  address: string,
  namespace: string,
  timeoutMs: number,
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<void> {
  let gone: number | null | undefined;
  void exited.then((code) => {
    gone = code;
  });
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (gone !== undefined) throw new Error(`temporal server exited (${gone}) while starting: ${stderr()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`temporal server on ${address} not ready within ${timeoutMs} ms: ${String(last)} ${stderr()}`);
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
