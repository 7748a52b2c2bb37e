/**
 * Loading a comparison into the editor store: two runs (the one on the canvas as A, the picked
 * one as B: `runs.compare` — the engine's compareRuns over both event logs, with each run's
 * cost — and B's state for the side-by-side values) or two versions of the flow (compareFlows
 * over both documents, the older as A).
 */
import { compareFlows, type Flow, isFinalStatus, type RunComparison } from '@weft/engine';
import { getFullRun } from '../runs/full-run.ts';
import { runMarks, versionMarks } from '../store/compare-view.ts';
import type { EditorStore } from '../store/editor-store.ts';
import { trpc } from '../trpc.ts';

function nodeIdsOf(store: EditorStore): Set<string> {
  return new Set(store.getState().graph.nodes.map((node) => node.id));
}

export async function compareWithRun(store: EditorStore, otherRunId: string): Promise<void> {
  const run = store.getState().run;
  if (!run) throw new Error('open a run first');
  const [a, b, compared] = await Promise.all([
    isFinalStatus(run.state.status) ? { state: run.state } : getFullRun(run.runId),
    getFullRun(otherRunId),
    trpc.runs.compare.query({ a: run.runId, b: otherRunId }),
  ]);
  if (!isFinalStatus(b.state.status)) throw new Error(`run ${otherRunId} is still ${b.state.status}`);
  const { cost, ...rest } = compared;
  const comparison = rest as RunComparison;
  // The canvas may have moved on to another run meanwhile.
  if (store.getState().run?.runId !== run.runId) return;
  store.getState().setCompare({
    kind: 'runs',
    a: { runId: run.runId, state: a.state },
    b: { runId: otherRunId, state: b.state },
    comparison,
    cost,
    ...runMarks(comparison, nodeIdsOf(store)),
  });
}

export async function compareWithVersion(store: EditorStore, other: number): Promise<void> {
  const { flowId, version } = store.getState();
  if (version === null) throw new Error('save the flow first: only saved versions can be compared');
  if (other === version) throw new Error(`version ${other} is the version on the canvas`);
  const [older, newer] = other < version ? [other, version] : [version, other];
  const [a, b] = await Promise.all([
    trpc.flows.get.query({ id: flowId, version: older }),
    trpc.flows.get.query({ id: flowId, version: newer }),
  ]);
  const flowA = a.doc as unknown as Flow;
  const flowB = b.doc as unknown as Flow;
  const comparison = compareFlows(flowA, flowB);
  store.getState().setCompare({
    kind: 'versions',
    a: { version: older, flow: flowA },
    b: { version: newer, flow: flowB },
    comparison,
    ...versionMarks(comparison, nodeIdsOf(store)),
  });
}
