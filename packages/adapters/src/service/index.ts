export {
  ApprovalClosedError,
  ApprovalNotFoundError,
  BackendRefusedError,
  BackendUnavailableError,
  RunEndedError,
} from './errors.ts';
export { type NewRunRequest, newRunId, type RunRules, recordRun, validatedFlow } from './record-run.ts';
export { planReplay, type ReplayPlan, UnknownCheckpointError } from './replay-plan.ts';
export {
  type DecisionRequest,
  type ReplayPreview,
  type ReplayRequest,
  RunService,
  type RunServiceOptions,
  type StartRunRequest,
} from './run-service.ts';
