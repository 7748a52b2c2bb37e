export { MAX_SPAWN_DEPTH } from '../backends/children.ts';
export { directoryFlowSource, FlowNotFoundError, type FlowSource, memoryFlowSource } from '../backends/flow-source.ts';
export { type InProcessBackend, type InProcessBackendOptions, inProcessBackend } from './backend.ts';
export { InputInvalidError, InputTooLargeError, RunBusyError, RunnerClosedError, UnknownRunError } from './errors.ts';
export { GroupCommitter } from './group-commit.ts';
export type { ApprovalDecider } from './host.ts';
export {
  DEFAULT_MAX_INPUT_BYTES,
  type ResumeOptions,
  type RunnerOptions,
  type RunOutcome,
  type StartOptions,
} from './options.ts';
export { InProcessRunner } from './runner.ts';
