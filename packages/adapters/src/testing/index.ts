/**
 * Runs as tests (issue 14): save a completed run as a test case (`caseFromRun`), run cases
 * offline against the current flows (`runCase`, `runCaseFiles`), report them (`junitXml`).
 * The case format is described in case-format.ts.
 */

export {
  CaseFileCollisionError,
  caseFileName,
  DEFAULT_TESTS_DIR,
  listCaseFiles,
  loadCaseFile,
  type RunFilesOptions,
  runCaseFiles,
  writeCaseFile,
} from './case-files.ts';
export {
  type CaseApproval,
  DEFAULT_MATCH,
  formatTestCase,
  MATCH_KINDS,
  type MatchKind,
  parseTestCase,
  readTestCase,
  TEST_FORMAT_VERSION,
  type TestCase,
  TestCaseInvalidError,
  testCaseSchema,
} from './case-format.ts';
export {
  type CaseFromRunOptions,
  caseFromRun,
  RECORDED_KINDS,
  RunNotCompletedError,
  shortRunId,
} from './case-from-run.ts';
export { type CaseRun, firstDifference } from './compare-case.ts';
export { junitXml } from './junit.ts';
export { NoRecordedResultError, offlineExecutors, type RefusedCall } from './offline-executors.ts';
export { schemaMismatch, schemaOfValue } from './output-schema.ts';
export { type CaseResult, DEFAULT_CASE_TIMEOUT_MS, type RunCaseOptions, runCase } from './run-case.ts';
