/**
 * What the Export dialog asks flows.exportCode for. Export shows what the user sees: a saved
 * graph is exported by id and version (flows.exportCode reads the stored document); a graph
 * with unsaved edits is compiled here and its document sent (flows.exportDocCode), so nothing
 * needs saving first. A graph that does not compile cannot be exported: its problems say why.
 */
import { type FlowGraph, graphToFlow } from '@weft/engine';
import type { CodeFile, ExportTargetId } from './export-files.ts';

export interface ExportSource {
  flowId: string;
  version: number | null;
  dirty: boolean;
  graph: FlowGraph;
}

/** flows.exportCode (a stored version) or flows.exportDocCode (the document itself). */
export type ExportCodeInput =
  | { id: string; version: number; target: ExportTargetId }
  | { doc: Record<string, unknown>; target: ExportTargetId };

export type ExportRequest = { ok: true; input: ExportCodeInput; unsaved: boolean } | { ok: false; message: string };

/** Sends the request to the procedure that takes it. */
export function fetchExport(
  input: ExportCodeInput,
  api: {
    exportCode(input: { id: string; version: number; target: ExportTargetId }): Promise<{ files: CodeFile[] }>;
    exportDocCode(input: { doc: Record<string, unknown>; target: ExportTargetId }): Promise<{ files: CodeFile[] }>;
  },
): Promise<{ files: CodeFile[] }> {
  return 'doc' in input ? api.exportDocCode(input) : api.exportCode(input);
}

export function exportRequest(source: ExportSource, target: ExportTargetId): ExportRequest {
  if (!source.dirty && source.version !== null) {
    return { ok: true, unsaved: false, input: { id: source.flowId, version: source.version, target } };
  }
  const compiled = graphToFlow(source.graph);
  if (!compiled.ok) {
    const count = compiled.errors.length;
    return {
      ok: false,
      message: `The flow has ${count} problem${count === 1 ? '' : 's'} (see the Problems panel): fix ${count === 1 ? 'it' : 'them'} to export. First: ${compiled.errors[0]!.message}`,
    };
  }
  return {
    ok: true,
    unsaved: source.dirty,
    input: { doc: compiled.flow as unknown as Record<string, unknown>, target },
  };
}
