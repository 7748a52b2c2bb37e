/**
 * A run and the child runs it spawned form a tree; the CLI reports on the whole of it: the
 * root's outcome, every pending approval (wherever it is) and how to resolve it.
 */
import type { ApprovalRecord, RunRecord, RunStore } from '@weft/adapters/store';
import { CliError } from './output.ts';

export async function getRunOrFail(store: RunStore, runId: string): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (!run) throw new CliError(`unknown run '${runId}' (see \`weft runs list\`)`);
  return run;
}

/** The top-most ancestor of a run (itself when it has no parent). */
export async function rootOf(store: RunStore, run: RunRecord): Promise<RunRecord> {
  let current = run;
  for (let depth = 0; current.parentRunId && depth < 64; depth++) {
    const parent = await store.getRun(current.parentRunId);
    if (!parent) break;
    current = parent;
  }
  return current;
}

/** The run and all its descendants, parents before children. */
export async function runTree(store: RunStore, root: RunRecord): Promise<RunRecord[]> {
  const runs = [root];
  for (let i = 0; i < runs.length && runs.length < 10_000; i++) {
    const children = await store.listRuns({ parentRunId: runs[i]!.id });
    runs.push(...children.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)));
  }
  return runs;
}

/** "sub › " labels that prefix a child run's steps in progress output; the root has none. */
export function treeLabels(runs: readonly RunRecord[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const run of runs) {
    const parentLabel = run.parentRunId ? labels.get(run.parentRunId) : undefined;
    labels.set(run.id, run.parentRunId ? `${parentLabel ?? `${run.parentRunId} `}${run.parentStepId ?? '?'} › ` : '');
  }
  return labels;
}

export async function pendingApprovals(store: RunStore, runs: readonly RunRecord[]): Promise<ApprovalRecord[]> {
  const pending: ApprovalRecord[] = [];
  for (const run of runs) {
    if (run.status !== 'waiting' && run.status !== 'running') continue;
    pending.push(...(await store.listApprovals({ runId: run.id, status: 'pending' })));
  }
  return pending;
}

export function approveCommand(runId: string, stepId: string): string {
  return `weft approve ${shellQuote(runId)} ${shellQuote(stepId)} yes|no`;
}

/** Quotes a word for a POSIX shell when it holds anything beyond plain characters (e.g. `each[0]/ok`). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./~:@=+-]+$/.test(word) && !word.startsWith('~') ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
