export { checkFixtures, TurnShapeError } from '../executors/turn-shape.ts';
export {
  ApprovalClosedError,
  ApprovalNotFoundError,
  BackendRefusedError,
  BackendUnavailableError,
  RunEndedError,
  SideEffectsUnconfirmedError,
  UnknownFlowVersionError,
} from './errors.ts';
export {
  type Cost,
  costOf,
  costOfUsage,
  costsOfRun,
  PriceConfigError,
  type PricedTurn,
  type PriceOptions,
  type PriceOverride,
  type PriceOverrides,
  type PriceProblemReporter,
  parsePriceOverrides,
  pricer,
  type RunCosts,
  reportPriceProblems,
  type StepCost,
  type TurnUsage,
  turnsOf,
} from './pricing.ts';
export { type NewRunRequest, newRunId, type RunRules, recordRun, validatedFlow } from './record-run.ts';
export { stepsOfCheckpoint } from './replay-gate.ts';
export { planReplay, type ReplayOptions, type ReplayPlan, UnknownCheckpointError } from './replay-plan.ts';
export {
  type DecisionRequest,
  type ReplayPreview,
  type ReplayRequest,
  RunService,
  type RunServiceOptions,
  type StartRunRequest,
} from './run-service.ts';
