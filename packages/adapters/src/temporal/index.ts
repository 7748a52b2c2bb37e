export { createActivities } from './activities.ts';
export { openTemporalBackend, type TemporalBackend, type TemporalBackendOptions } from './backend.ts';
export {
  approveTemporalRun,
  awaitTemporalRun,
  cancelTemporalRun,
  connectTemporal,
  type StartTemporalRunOptions,
  startTemporalRun,
} from './client.ts';
export {
  devServerArgs,
  startTemporalDevServer,
  type TemporalDevServer,
  temporalBinary,
} from './dev-server.ts';
export type { ApproveSignal, WeftFlowArgs } from './types.ts';
export { APPROVE_SIGNAL, DEFAULT_TASK_QUEUE, WORKFLOW_TYPE } from './types.ts';
export {
  startTemporalWorker,
  type TemporalWorkerHandle,
  type TemporalWorkerOptions,
  weftWorkflowBundle,
} from './worker.ts';
