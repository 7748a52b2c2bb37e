export { directoryFlowSource, FlowNotFoundError, type FlowSource, memoryFlowSource } from './flow-source.ts';
export { GroupCommitter } from './group-commit.ts';
export type { ApprovalDecider } from './host.ts';
export {
  DEFAULT_MAX_INPUT_BYTES,
  InProcessRunner,
  InputTooLargeError,
  MAX_SPAWN_DEPTH,
  RunBusyError,
  type RunnerOptions,
  type RunOutcome,
  type StartOptions,
} from './runner.ts';
