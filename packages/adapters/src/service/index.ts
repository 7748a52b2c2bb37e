export {
  ApprovalClosedError,
  ApprovalNotFoundError,
  BackendRefusedError,
  BackendUnavailableError,
  RunEndedError,
} from './errors.ts';
export { type NewRunRequest, newRunId, type RunRules, recordRun, validatedFlow } from './record-run.ts';
export { type DecisionRequest, RunService, type RunServiceOptions, type StartRunRequest } from './run-service.ts';
