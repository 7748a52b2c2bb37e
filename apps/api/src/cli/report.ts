/**
 * The end of `run`, `approve` and `runs resume`: a one-line summary folded from the stored
 * events of the whole run tree (status, duration, steps, tokens), the error and the step it
 * came from, or — when the run parked — every pending approval with the command that resolves
 * it; then the `--json` line and the exit code (0 completed, 1 failed/cancelled, 2 parked).
 */
import type { RunRecord, RunStore } from '@weft/adapters/store';
import { type ErrorInfo, type Json, type RunState, runState } from '@weft/engine';
import { EXIT, formatDuration, plural, printJsonLine, redact, stderr } from './output.ts';
import { approveCommand, pendingApprovals, runTree, shellQuote } from './tree.ts';

export interface TreeStats {
  steps: number;
  failedSteps: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number | null;
}

/** Sub-steps of an llm step are counted as tokens, not as steps. */
const SUB_STEP_TYPES = new Set(['model-turn', 'tool-call']);

export function treeStats(states: readonly RunState[], now = Date.now()): TreeStats {
  const stats: TreeStats = { steps: 0, failedSteps: 0, inputTokens: 0, outputTokens: 0, durationMs: null };
  for (const state of states) {
    for (const step of Object.values(state.steps)) {
      if (step.stepType === 'model-turn') {
        stats.inputTokens += step.usage?.inputTokens ?? 0;
        stats.outputTokens += step.usage?.outputTokens ?? 0;
      }
      if (SUB_STEP_TYPES.has(step.stepType)) continue;
      if (step.status === 'completed') stats.steps++;
      if (step.status === 'failed') stats.failedSteps++;
    }
  }
  const root = states[0];
  if (root?.startedAt != null) stats.durationMs = (root.endedAt ?? now) - root.startedAt;
  return stats;
}

/** Steps that are checkpointed calls: what a replay either reuses or executes. */
const CALL_STEP_TYPES = new Set(['model-turn', 'tool-call', 'tool', 'code', 'http', 'spawn', 'approval']);

/**
 * For a replay's `--json`: the checkpoints it answered from its source run (`reused`; pinned ones
 * are answered from the seed too, and listed apart) and those it executed itself, each in start
 * order, from its events (what happened, not what was planned).
 */
export function replayFacts(state: RunState, pinned?: Json): { reused: string[]; executed: string[] } {
  const given = new Set(Array.isArray(pinned) ? pinned : []);
  const reused: string[] = [];
  const executed: string[] = [];
  for (const stepId of state.order) {
    const step = state.steps[stepId];
    if (!step || !CALL_STEP_TYPES.has(step.stepType) || (step.status !== 'completed' && step.status !== 'failed'))
      continue;
    if (!given.has(stepId)) (step.reused ? reused : executed).push(stepId);
  }
  return { reused, executed };
}

export async function reportOutcome(
  store: RunStore,
  rootRunId: string,
  options: { json: boolean; extra?: Record<string, Json> },
): Promise<number> {
  const root = await store.getRun(rootRunId);
  if (!root) throw new Error(`run ${rootRunId} disappeared from the store`);
  const runs = await runTree(store, root);
  const states = await Promise.all(runs.map(async (run) => runState(await store.readEvents(run.id))));
  const stats = treeStats(states);
  const tokens = stats.inputTokens + stats.outputTokens;
  const facts = [
    plural(stats.steps, 'step'),
    ...(stats.failedSteps > 0 ? [`${stats.failedSteps} failed`] : []),
    ...(runs.length > 1 ? [plural(runs.length - 1, 'child run')] : []),
    tokens > 0 ? `${tokens} tokens (${stats.inputTokens} in, ${stats.outputTokens} out)` : '0 tokens',
  ];
  const duration = formatDuration(stats.durationMs);
  const result: Record<string, Json> = { runId: root.id, status: root.status, output: root.output };
  if (root.replayOf && states[0])
    Object.assign(result, { replayOf: root.replayOf, ...replayFacts(states[0], options.extra?.pinned) });
  let code: number;
  switch (root.status) {
    case 'completed':
      stderr.write(`${stderr.style(['bold', 'green'], '✓ completed')} in ${duration} · ${facts.join(' · ')}\n`);
      code = EXIT.ok;
      break;
    case 'failed':
    case 'cancelled': {
      const error = root.error ?? { name: 'Error', message: `the run ${root.status}` };
      stderr.write(`${stderr.style(['bold', 'red'], `✗ ${root.status}`)} after ${duration} · ${facts.join(' · ')}\n`);
      if (root.status === 'failed') stderr.write(`  ${describeFailure(runs, root, error)}\n`);
      result.error = { ...error, message: redact(error.message) } as unknown as Json;
      code = EXIT.failed;
      break;
    }
    case 'waiting':
    case 'running': {
      const pending = await pendingApprovals(store, runs);
      stderr.write(
        `${stderr.style(['bold', 'yellow'], '⏸ parked')} after ${duration} · ${facts.join(' · ')} · run ${root.id}\n`,
      );
      if (pending.length > 0) {
        stderr.write(`  waiting for ${plural(pending.length, 'approval')}; resolve with:\n`);
        for (const approval of pending) {
          stderr.write(`    ${approveCommand(approval.runId, approval.stepId)}\n`);
          stderr.write(`      ${stderr.style('dim', JSON.stringify(approval.prompt))}\n`);
        }
      } else {
        stderr.write(`  continue it with: weft runs resume ${shellQuote(root.id)}\n`);
      }
      result.waiting = pending.map((approval) => ({
        runId: approval.runId,
        stepId: approval.stepId,
        prompt: approval.prompt,
        command: approveCommand(approval.runId, approval.stepId),
      }));
      code = EXIT.parked;
      break;
    }
  }
  if (options.json) printJsonLine({ ...result, ...options.extra });
  return code;
}

/** "error at step 'sub' → child run X, step 'boom': message" — follows failed child runs down. */
function describeFailure(runs: readonly RunRecord[], root: RunRecord, error: ErrorInfo): string {
  const hops: string[] = [];
  let run = root;
  let info = error;
  for (let depth = 0; depth < 32; depth++) {
    hops.push(info.stepId ? `step '${info.stepId}'` : `run ${run.id}`);
    const child = runs.find(
      (candidate) =>
        candidate.parentRunId === run.id && candidate.parentStepId === info.stepId && candidate.status === 'failed',
    );
    if (!child?.error) break;
    hops.push(`child run ${child.id}`);
    run = child;
    info = child.error;
  }
  return `${stderr.style('red', 'error')} at ${hops.join(' → ')}: ${redact(info.message)}`;
}
