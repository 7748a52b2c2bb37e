export { freePort } from './dev-process.ts';
export { directoryFlowSource, FlowNotFoundError, type FlowSource, memoryFlowSource } from './flow-source.ts';
export {
  BACKEND_NAMES,
  type BackendName,
  type ExternalBackendName,
  isBackendName,
  type RunBackend,
  type RunDecision,
  type RunHandOver,
} from './run-backend.ts';
