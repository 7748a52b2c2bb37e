import type { Flow } from '@weft/engine';
import { format } from 'prettier';
import type { ExportTarget } from './targets/target.ts';
import { weftTarget } from './targets/weft.ts';

/** Every export target by name. */
export const TARGETS = { weft: weftTarget } as const satisfies Record<string, ExportTarget>;
export type ExportTargetName = keyof typeof TARGETS;

export function isExportTarget(name: string): name is ExportTargetName {
  return Object.hasOwn(TARGETS, name);
}

/** The flow as one formatted TypeScript module for `target`. */
export async function exportFlow(flow: Flow, target: ExportTargetName): Promise<string> {
  const source = TARGETS[target].emit(flow);
  return format(source, { parser: 'typescript', singleQuote: true, printWidth: 100, trailingComma: 'all' });
}
