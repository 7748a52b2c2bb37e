/**
 * An export target turns a flow into TypeScript (unformatted: `exportFlow` runs prettier over
 * it). Targets live one per file in this folder and register in `TARGETS` (export-flow.ts); the
 * shared printers for expressions, values and JSON Schema types are in `../emit/`, and what the
 * Inngest and Temporal targets share (the durable flow body and its runtime) is in
 * `../emit/durable-*.ts`. Every text from the flow that a target writes into a comment, a string
 * or template literal, a property name or a variable name goes through `../emit/escape.ts`.
 */
import type { Flow } from '@weft/engine';

/** One file of an export: a path relative to the output folder, and its text. */
export interface ExportFile {
  path: string;
  contents: string;
}

export interface ExportOptions {
  /**
   * Ids of the flows exported together with this one (into the same folder): a `spawn` of one
   * of them imports that flow's export; any other child flow is referenced by id.
   */
  flows?: readonly string[];
}

export interface ExportTarget {
  readonly name: string;
  /** The main module: the only one for a one-file target. */
  emit(flow: Flow, options?: ExportOptions): string;
  /** Every file, main module first. Absent for a one-file target: then `<flow id>.ts` holds `emit`. */
  emitFiles?(flow: Flow, options?: ExportOptions): ExportFile[];
}
