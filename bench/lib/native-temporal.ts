/**
 * The native Temporal program of bench/backends: the workflows of native-temporal-workflows.ts
 * bundled with the SDK's bundler, one worker with plain no-op activities on its own task queue,
 * and a client starting each workflow and awaiting its result — on the same dev server as Weft's
 * worker, with the SDK's defaults, as an application without Weft would run them.
 *
 * The SDK packages are dependencies of packages/adapters, not of the workspace root: loaded from
 * there (the same module instances Weft's worker uses; the runtime's quiet logger applies), typed
 * by path.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type NativeBench, type NativeJob, nativeModelTurn, nativeTool } from './native-agent.ts';
import type { NativeActivities } from './native-temporal-workflows.ts';

type ClientModule = typeof import('../../packages/adapters/node_modules/@temporalio/client/lib/index.js');
type WorkerModule = typeof import('../../packages/adapters/node_modules/@temporalio/worker/lib/index.js');

const ADAPTERS = new URL('../../packages/adapters/', import.meta.url);
const requireFromAdapters = createRequire(new URL('package.json', ADAPTERS));
const WORKFLOWS_PATH = fileURLToPath(new URL('./native-temporal-workflows.ts', import.meta.url));

const activities: NativeActivities = {
  noop: async () => null,
  model: async (input) => nativeModelTurn(input),
  tool: async (call) => nativeTool(call),
};

/** Connects a worker and a client to the dev server at `address` (host:port). */
export async function openNativeTemporal(address: string): Promise<NativeBench> {
  const { Client, Connection } = requireFromAdapters('@temporalio/client') as ClientModule;
  const { Worker, NativeConnection, bundleWorkflowCode, DefaultLogger } = requireFromAdapters(
    '@temporalio/worker',
  ) as WorkerModule;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('WARN'),
    // The generated entry point (next to the workflows file) imports @temporalio/workflow by name.
    webpackConfigHook: (config) => {
      const modules = config.resolve?.modules ?? ['node_modules'];
      config.resolve = { ...config.resolve, modules: [...modules, fileURLToPath(new URL('node_modules', ADAPTERS))] };
      return config;
    },
  });
  const taskQueue = `weft-bench-native-${process.pid}`;
  const workerConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    workflowBundle,
    activities,
  });
  const running = worker.run();
  running.catch(() => undefined);
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  let sequence = 0;
  return {
    label: 'temporal native',
    describe:
      'a plain workflow: one no-op activity per step (awaited in a loop / Promise.all), per agent turn a model activity and a tool activity',
    async run(job: NativeJob) {
      const workflowId = `native-${process.pid}-${++sequence}`;
      if (job.kind === 'sequential')
        return client.workflow.execute('nativeSequential', { taskQueue, workflowId, args: [job.steps] });
      if (job.kind === 'fanOut')
        return client.workflow.execute('nativeFanOut', { taskQueue, workflowId, args: [job.width] });
      return client.workflow.execute('nativeAgent', { taskQueue, workflowId, args: [job.fixtures] });
    },
    async close() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await workerConnection.close();
      await connection.close();
    },
  };
}
