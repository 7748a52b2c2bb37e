/**
 * The `temporal` export behaves like the flow on a real Temporal server: every example is
 * exported (workflow + activities files), one worker registers all their workflows (through an
 * index that re-exports each) and all their activities, and each conformance case an export can
 * run (test-support/server-cases.ts) is started by its exported workflow name; approvals are
 * decided with the exported `approve` signal once the `pendingApprovals` query lists them. The
 * output (or the failure's reason) must be the case's. Run with `pnpm test:export-servers`.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDemoApi, withApiBase } from '@weft/adapters/conformance';
import { startTemporalDevServer } from '@weft/adapters/temporal';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { camelId } from './emit/durable-module.ts';
import {
  CASE_TIMEOUT_MS,
  EXPORT_CASES,
  type ExportRunResult,
  expectCaseResult,
  SERVER_SETUP_TIMEOUT_MS,
  writeExports,
} from './test-support/server-cases.ts';

const TASK_QUEUE = `weft-export-${process.pid}`;

let teardown: (() => Promise<void>)[] = [];
let client: Client | undefined;
let apiBase = '';

beforeAll(async () => {
  // Runs that fail on purpose would each log a warning.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const [server, api, exported] = await Promise.all([
    startTemporalDevServer(),
    startDemoApi(),
    writeExports('temporal'),
  ]);
  teardown.push(
    () => server.stop(),
    () => api.close(),
  );
  teardown.push(async () => rmSync(exported.folder, { recursive: true, force: true }));
  apiBase = api.baseUrl;

  const workflows = exported.files.filter((file) => file.endsWith('.workflow.ts'));
  const index = join(exported.folder, 'index.workflows.ts');
  writeFileSync(
    index,
    workflows
      .map((file) => `export { ${camelId(file.slice(0, -'.workflow.ts'.length))} } from './${file}';`)
      .join('\n'),
  );
  const activities: Record<string, unknown> = {};
  for (const file of exported.files.filter((name) => name.endsWith('.activities.ts'))) {
    const module = (await import(pathToFileURL(join(exported.folder, file)).href)) as Record<string, unknown>;
    for (const [name, activity] of Object.entries(module)) {
      if (typeof activity !== 'function') continue;
      // modelTurn and httpRequest are the same in every export; any other name is one flow's own.
      if (name in activities && name !== 'modelTurn' && name !== 'httpRequest')
        throw new Error(`two exports define activity ${name}`);
      activities[name] = activity;
    }
  }
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({ connection, taskQueue: TASK_QUEUE, workflowsPath: index, activities });
  const running = worker.run();
  teardown.push(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  teardown.push(() => client!.connection.close());
}, SERVER_SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const step of teardown.reverse()) await step().catch(() => {});
  teardown = [];
}, 60_000);

async function runCase(testCase: (typeof EXPORT_CASES)[number]): Promise<ExportRunResult> {
  if (!client) throw new Error('the Temporal server or worker did not start');
  const handle = await client.workflow.start(camelId(testCase.flow), {
    taskQueue: TASK_QUEUE,
    workflowId: `${testCase.flow}-${crypto.randomUUID()}`,
    args: [withApiBase(testCase.input, apiBase)],
  });
  const pending = new Map(Object.entries(testCase.approvals));
  const result = handle.result();
  let ended = false;
  const end = () => {
    ended = true;
  };
  result.then(end, end);
  while (pending.size > 0 && !ended) {
    const waiting = await handle.query<{ stepId: string }[]>('pendingApprovals').catch(() => []);
    for (const { stepId } of waiting) {
      const decision = pending.get(stepId);
      if (decision === undefined) continue;
      await handle.signal('approve', { stepId, ...decision });
      pending.delete(stepId);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  try {
    return { status: 'completed', output: await result };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    return { status: 'failed', message: causes(error) };
  }
}

/** The messages of an error and its causes, outermost first. */
function causes(error: unknown): string {
  const messages: string[] = [];
  for (let at: unknown = error; at instanceof Error; at = at.cause) messages.push(at.message);
  return messages.join(': ');
}

describe('the temporal export of every conformance flow on a real Temporal server', () => {
  it.each(EXPORT_CASES.map((testCase) => [testCase.name, testCase] as const))(
    '%s',
    async (_name, testCase) => {
      expectCaseResult(testCase, await runCase(testCase));
    },
    CASE_TIMEOUT_MS,
  );
});
