export * from './code-first/define-flow.ts';
export * from './errors.ts';
export { compareRuns, type JsonChange, type RunComparison, type StepComparison } from './events/compare.ts';
export * from './events/events.ts';
export { fixturesFromEvents } from './events/fixtures.ts';
export * from './events/reducer.ts';
export * from './events/timeline.ts';
export * from './expr/index.ts';
export * from './graph/index.ts';
export { canonicalJson, hashCall, hashValue, sameCall } from './interpreter/call-hash.ts';
export type { InterpretOptions, Scope } from './interpreter/context.ts';
export { formatFlowRef, parseFlowRef } from './interpreter/flow-ref.ts';
export * from './interpreter/host.ts';
export { interpret } from './interpreter/interpret.ts';
export { compareFlows, type FlowComparison, type FlowStepChange, flowStepsInOrder } from './ir/compare-flows.ts';
export * from './ir/duration.ts';
export {
  type ChatSettings,
  chatSettingsSchema,
  FIRST_TOOL_CALL,
  type Flow,
  type FlowTool,
  flowSchema,
  HANDOFF_TARGETS,
  type Handoff,
  handoffSchema,
  IR_VERSION,
} from './ir/flow.ts';
export { checkInput, type InputIssue, pointerSegments } from './ir/input-schema.ts';
export { MIGRATIONS, type Migration, migrateFlow } from './ir/migrate.ts';
export * from './json.ts';
export {
  checkJsonShape,
  checkJsonTextDepth,
  formatLongPath,
  MAX_DOCUMENT_DEPTH,
  MAX_INPUT_DEPTH,
  type ShapeIssue,
} from './json-shape.ts';
export { CREDENTIAL_NAME, isCredentialHeader, REDACTED } from './steps/http.ts';
export {
  BASE_FIELDS,
  type BodyName,
  type BodyScope,
  bodyNames,
  type ChildRuns,
  type EditorInfo,
  EXPRESSION_KINDS,
  type FieldKind,
  type FieldSpec,
  RETRY_FIELDS,
  STEP_LIST_KINDS,
  type StepIcon,
  type StepManifest,
  type StepShape,
} from './steps/manifest.ts';
export {
  type ChildList,
  childLists,
  fieldSpec,
  isStepType,
  manifestOf,
  STEP_MANIFESTS,
  STEP_TYPES,
  type Step,
  type StepField,
  type StepOf,
  type StepType,
  stepFieldSpecs,
  stepSchema,
} from './steps/registry.ts';
export { formatPath, type ValidationIssue } from './validate/issues.ts';
export { namesOtherFlows, type ValidateOptions, type ValidationResult, validateFlow } from './validate/validate.ts';
