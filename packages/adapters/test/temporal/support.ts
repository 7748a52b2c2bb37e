/**
 * Shared by the Temporal process-level tests: the real dev server with a store and a client, a
 * worker child process, and history decoding.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Json } from '@weft/engine';
import { openSqliteStore } from '../../src/store/index.ts';
import type { RunStore } from '../../src/store/types.ts';
import { connectTemporal, type StartTemporalRunOptions, startTemporalRun } from '../../src/temporal/client.ts';
import { startTemporalDevServer, type TemporalDevServer } from '../../src/temporal/dev-server.ts';
import type { TemporalWorkerConfig } from '../fixtures/temporal-worker.ts';

export interface Testbed {
  server: TemporalDevServer;
  store: RunStore;
  client: Client;
  dir: string;
}

/** A dev server, a SQLite store in a temp dir (`prefix`) that worker children share, and a client. */
export async function openTestbed(prefix: string): Promise<Testbed> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = await startTemporalDevServer();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = await openSqliteStore(join(dir, 'weft.db'));
  const client = await connectTemporal({ address: server.address });
  return { server, store, client, dir };
}

/** Kills every worker child, then closes what openTestbed opened (whatever of it was opened). */
export async function closeTestbed(bed: Partial<Testbed>): Promise<void> {
  await killAllWorkerChildren();
  await bed.client?.connection.close();
  await bed.store?.close();
  await bed.server?.stop();
  if (bed.dir) rmSync(bed.dir, { recursive: true, force: true });
}

const WORKER = fileURLToPath(new URL('../fixtures/temporal-worker.ts', import.meta.url));

/** Generous: a worker child loads the SDK and bundles the workflow on a shared 2-core machine. */
const READY_TIMEOUT_MS = 60_000;

export interface WorkerChild {
  readonly lines: string[];
  /** Resolves once a stdout line satisfies `match` (already seen or later). */
  waitFor(match: (line: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  readonly stderr: () => string;
}

const live = new Set<ChildProcess>();

/** Starts fixtures/temporal-worker.ts and waits for it to poll. */
export async function startWorkerChild(config: TemporalWorkerConfig): Promise<WorkerChild> {
  const child = spawn(process.execPath, [WORKER, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'weft-test-compile-cache'),
    },
  });
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => live.delete(child));
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters) wake();
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  void exited.then(() => {
    for (const wake of waiters) wake();
  });

  const waitFor = (match: (line: string) => boolean, what: string, timeoutMs = READY_TIMEOUT_MS) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found !== undefined) return done(() => resolve(found));
        if (child.exitCode !== null || child.signalCode !== null)
          done(() => reject(new Error(`worker exited before ${what}: ${stderr}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${what} within ${timeoutMs} ms: ${stderr}`))),
        timeoutMs,
      );
      const done = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });

  const handle: WorkerChild = {
    lines,
    waitFor,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stderr: () => stderr,
  };
  try {
    await waitFor((line) => line === 'ready', 'ready');
  } catch (error) {
    await handle.kill();
    throw error;
  }
  return handle;
}

/** Kills every worker child still alive (afterAll safety net). */
export async function killAllWorkerChildren(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** `<runId> <id>` lines of the side-effect log, in order. */
export function readLog(file: string): { runId: string; id: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const space = line.indexOf(' ');
      return { runId: line.slice(0, space), id: line.slice(space + 1) };
    });
}

export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];
type Payloads = NonNullable<HistoryEvent['activityTaskScheduledEventAttributes']>['input'];

function decodePayloads(payloads: Payloads): unknown[] {
  return (payloads?.payloads ?? []).map((payload) =>
    payload.data ? JSON.parse(Buffer.from(payload.data).toString('utf8')) : undefined,
  );
}

/** The step ids of every `executeCall` activity a history schedules, in order. */
export function scheduledCallSteps(events: readonly HistoryEvent[]): string[] {
  const steps: string[] = [];
  for (const event of events) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes && attributes.activityType?.name === 'executeCall')
      steps.push(String((decodePayloads(attributes.input) as [string, string])[1]));
  }
  return steps;
}

/** The step ids of the `executeCall` activities a history records as completed. */
export function completedCallSteps(events: readonly HistoryEvent[]): string[] {
  const scheduled = new Map<string, string>();
  const completed: string[] = [];
  for (const event of events) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes && attributes.activityType?.name === 'executeCall') {
      const [, stepId] = decodePayloads(attributes.input) as [string, string];
      scheduled.set(String(event.eventId), stepId);
    }
    const done = event.activityTaskCompletedEventAttributes;
    if (done) {
      const stepId = scheduled.get(String(done.scheduledEventId));
      if (stepId !== undefined) completed.push(stepId);
    }
  }
  return completed;
}

/**
 * Records a run row as RunService would (without its validation: these flows use host tools
 * and children the tests provide) and starts its workflow, for tests that steer Temporal below
 * the product path to read its histories.
 */
export async function startRecordedRun(store: RunStore, options: StartTemporalRunOptions): Promise<void> {
  await store.createRun({
    id: options.runId,
    flowId: options.flow.id,
    flowVersion: options.flow.version ?? 1,
    flow: options.flow as unknown as Json,
    input: options.input,
    backend: 'temporal',
    ...(options.fixtures ? { fixtures: options.fixtures as Json } : {}),
  });
  await startTemporalRun(options);
}
