/**
 * @weft/codegen: flows as TypeScript and back. `exportFlow(flow, 'weft')` writes the
 * code-first module; `importFlow(source)` reads that shape back into IR v1. Node-side only
 * (the TypeScript compiler and prettier), so the engine stays small enough for Temporal's
 * workflow sandbox and the browser.
 */
export { type ExportTargetName, exportFlow, isExportTarget, TARGETS } from './export-flow.ts';
export { type ImportIssue, type ImportResult, importFlow } from './import/import-flow.ts';
export type { ExportTarget } from './targets/target.ts';
