import type { Flow } from '@weft/engine';
import { formatSource } from './format-source.ts';
import { inngestTarget } from './targets/inngest.ts';
import type { ExportFile, ExportOptions, ExportTarget } from './targets/target.ts';
import { temporalTarget } from './targets/temporal.ts';
import { weftTarget } from './targets/weft.ts';

/** Every export target by name. */
export const TARGETS = {
  weft: weftTarget,
  inngest: inngestTarget,
  temporal: temporalTarget,
} as const satisfies Record<string, ExportTarget>;
export type ExportTargetName = keyof typeof TARGETS;

export function isExportTarget(name: string): name is ExportTargetName {
  return Object.hasOwn(TARGETS, name);
}

/** The flow as one formatted TypeScript module for `target`: the main one of a multi-file target. */
export async function exportFlow(flow: Flow, target: ExportTargetName, options?: ExportOptions): Promise<string> {
  return formatSource(TARGETS[target].emit(flow, options));
}

/**
 * Every file of the flow's export for `target`, formatted, main module first: one for `weft` and
 * `inngest`, a workflow and an activities file for `temporal`. Paths are relative to the folder
 * the export is written to.
 */
export async function exportFlowFiles(
  flow: Flow,
  target: ExportTargetName,
  options?: ExportOptions,
): Promise<ExportFile[]> {
  const chosen: ExportTarget = TARGETS[target];
  const files = chosen.emitFiles?.(flow, options) ?? [{ path: `${flow.id}.ts`, contents: chosen.emit(flow, options) }];
  return Promise.all(files.map(async (file) => ({ path: file.path, contents: await formatSource(file.contents) })));
}
