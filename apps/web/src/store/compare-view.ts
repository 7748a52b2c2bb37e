/**
 * What the canvas draws while comparing: a mark per graph node — from two runs compared step by
 * step (the engine's compareRuns), or two versions of the flow (compareFlows) — the node of the
 * first divergence, and what has no node on this canvas (a step the other version removed, a
 * step of a run that this version does not have).
 */
import type { Flow, FlowComparison, RunComparison, RunState } from '@weft/engine';
import { nodeIdsOfStep } from './run-status.ts';

export type RunMark = 'same' | 'different' | 'only-a' | 'only-b';
export type VersionMark = 'same' | 'changed' | 'added' | 'removed';
export type CompareMark = RunMark | VersionMark;

interface CompareBase {
  /** Graph node id → its mark. */
  marks: Record<string, CompareMark>;
  /** The node of the first divergence in execution order (runs), or null. */
  firstDivergence: string | null;
  /** Steps that differ but have no node on this canvas. */
  offCanvas: { stepId: string; mark: CompareMark }[];
}

export interface RunsCompareView extends CompareBase {
  kind: 'runs';
  /** A is the run on the canvas, B the one picked. */
  a: { runId: string; state: RunState };
  b: { runId: string; state: RunState };
  comparison: RunComparison;
  /** What each run's model turns cost (US dollars; models without a price named), when known. */
  cost?: { a: Cost; b: Cost; deltaUsd: number };
}

export interface Cost {
  usd: number;
  unpriced: string[];
}

export interface VersionsCompareView extends CompareBase {
  kind: 'versions';
  /** The older version (A) and the newer (B); the canvas shows one of them. */
  a: { version: number; flow: Flow };
  b: { version: number; flow: Flow };
  comparison: FlowComparison;
}

export type CompareView = RunsCompareView | VersionsCompareView;

/** The graph node a run step is drawn on, if this graph has one. */
export function nodeOfStep(stepId: string, nodeIds: ReadonlySet<string>): string | null {
  return nodeIdsOfStep(stepId).find((id) => nodeIds.has(id)) ?? null;
}

/**
 * One mark per node from its steps' kinds: all the same → same; all in one run only → that run;
 * any other mix (a step that differs, a map with one item more) → different.
 */
export function runMarks(
  comparison: RunComparison,
  nodeIds: ReadonlySet<string>,
): Pick<CompareBase, 'marks' | 'firstDivergence' | 'offCanvas'> {
  const kinds: Record<string, Set<RunMark>> = Object.create(null);
  const offCanvas: CompareBase['offCanvas'] = [];
  for (const step of comparison.steps) {
    const nodeId = nodeOfStep(step.stepId, nodeIds);
    if (nodeId === null) {
      if (step.kind !== 'same') offCanvas.push({ stepId: step.stepId, mark: step.kind });
      continue;
    }
    kinds[nodeId] ??= new Set();
    kinds[nodeId].add(step.kind);
  }
  const marks: Record<string, CompareMark> = Object.create(null);
  for (const [nodeId, seen] of Object.entries(kinds)) {
    const only = seen.size === 1 ? [...seen][0] : undefined;
    marks[nodeId] = only ?? 'different';
  }
  const first = comparison.firstDivergence;
  return { marks, firstDivergence: first === null ? null : nodeOfStep(first, nodeIds), offCanvas };
}

/** Marks of two versions' steps: those on this canvas by id, the others listed. */
export function versionMarks(
  comparison: FlowComparison,
  nodeIds: ReadonlySet<string>,
): Pick<CompareBase, 'marks' | 'firstDivergence' | 'offCanvas'> {
  const marks: Record<string, CompareMark> = Object.create(null);
  const offCanvas: CompareBase['offCanvas'] = [];
  for (const step of comparison.steps) {
    if (nodeIds.has(step.stepId)) marks[step.stepId] = step.kind;
    else offCanvas.push({ stepId: step.stepId, mark: step.kind });
  }
  return { marks, firstDivergence: null, offCanvas };
}

/** How many nodes carry each mark (for the legend). */
export function markCounts(marks: Record<string, CompareMark>): Partial<Record<CompareMark, number>> {
  const counts: Partial<Record<CompareMark, number>> = {};
  for (const mark of Object.values(marks)) counts[mark] = (counts[mark] ?? 0) + 1;
  return counts;
}

/** What each mark means, for the legend and the nodes' accessible text. */
export function markLabel(mark: CompareMark, view: Pick<CompareView, 'kind' | 'a' | 'b'>): string {
  if (view.kind === 'runs') {
    return {
      same: 'same',
      different: 'different',
      'only-a': 'only in this run',
      'only-b': 'only in the other run',
      changed: 'changed',
      added: 'added',
      removed: 'removed',
    }[mark];
  }
  const { a, b } = view as VersionsCompareView;
  return {
    same: 'unchanged',
    changed: `changed in v${b.version}`,
    added: `added in v${b.version}`,
    removed: `removed in v${b.version} (was in v${a.version})`,
    different: 'different',
    'only-a': `only in v${a.version}`,
    'only-b': `only in v${b.version}`,
  }[mark];
}
