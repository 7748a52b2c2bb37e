/**
 * An export target turns a flow into one TypeScript module (unformatted: `exportFlow` runs
 * prettier over it). Targets live one per file in this folder and register in `TARGETS`
 * (export-flow.ts); the shared printers for expressions, values and JSON Schema types are in
 * `../emit/`. An Inngest or Temporal target is another file here.
 */
import type { Flow } from '@weft/engine';

export interface ExportTarget {
  readonly name: string;
  emit(flow: Flow): string;
}
