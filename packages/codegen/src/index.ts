/**
 * @weft/codegen: flows as TypeScript and back. `exportFlow(flow, 'weft')` writes the
 * code-first module; `exportFlowFiles(flow, 'inngest' | 'temporal')` writes a plain Inngest
 * function, or a Temporal workflow + activities, that run without Weft; `importFlow(source)`
 * reads the weft shape back into IR v1. Node-side only (the TypeScript compiler and prettier),
 * so the engine stays small enough for Temporal's workflow sandbox and the browser.
 */
export { type ExportTargetName, exportFlow, exportFlowFiles, isExportTarget, TARGETS } from './export-flow.ts';
export { type ImportIssue, type ImportResult, importFlow } from './import/import-flow.ts';
export type { ExportFile, ExportOptions, ExportTarget } from './targets/target.ts';
