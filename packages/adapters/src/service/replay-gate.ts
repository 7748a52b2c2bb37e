/**
 * Which recorded checkpoints a replay may not reuse although they completed before its point:
 * those whose steps the user asked to run live, and — replaying onto another version of the
 * flow — those whose step no longer exists or changed (or uses a flow tool that changed), and
 * every checkpoint of a step that comes after an added or changed step in the new version's
 * order, since it may read what that step now produces. The rule is static, so the preview says
 * exactly what the replay will do; a reused checkpoint whose call still turns out different at
 * run time (an edited input) runs live, as every seed answer is checked against its input.
 */
import { compareFlows, type Flow, flowStepsInOrder } from '@weft/engine';

/**
 * The step ids a checkpoint belongs to, outermost first: `each[2]/pick` → each, pick;
 * `agent/llm#3` and `agent/tool#2.0` → agent; `checks.spam/score` → checks, score.
 */
export function stepsOfCheckpoint(checkpoint: string): string[] {
  const steps: string[] = [];
  for (const segment of checkpoint.split('/')) {
    if (/^(llm|tool)#/.test(segment)) continue;
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(segment)?.[0];
    if (id) steps.push(id);
  }
  return steps;
}

export interface ReplayGate {
  /** Why the checkpoint is not reused, or undefined when it may be. */
  excludes(checkpoint: string): string | undefined;
}

export function replayGate(options: {
  live?: readonly string[];
  versions?: { source: Flow; target: Flow };
}): ReplayGate {
  const live = new Set(options.live ?? []);
  const versionGate = options.versions ? versionChanges(options.versions.source, options.versions.target) : undefined;
  return {
    excludes(checkpoint) {
      const chain = stepsOfCheckpoint(checkpoint);
      if (live.has(checkpoint)) return 'asked to run live';
      const liveStep = chain.find((stepId) => live.has(stepId));
      if (liveStep) return `step '${liveStep}' asked to run live`;
      return versionGate?.(chain);
    },
  };
}

/** The reason a checkpoint of these steps cannot be reused in the target version, if any. */
function versionChanges(source: Flow, target: Flow): (chain: string[]) => string | undefined {
  const comparison = compareFlows(source, target);
  const changedTools = new Set(comparison.tools.filter((tool) => tool.kind !== 'added').map((tool) => tool.name));
  const order = flowStepsInOrder(target);
  const position = new Map(order.map(({ step }, index) => [step.id, index]));
  const verdicts = new Map<string, string>();
  for (const change of comparison.steps) {
    if (change.kind === 'removed') verdicts.set(change.stepId, `step '${change.stepId}' no longer exists`);
    if (change.kind === 'changed')
      verdicts.set(
        change.stepId,
        `step '${change.stepId}' changed (${[...new Set(change.changes.map((c) => String(c.path[0])))].join(', ')})`,
      );
  }
  for (const { step } of order) {
    const tools = (step as { tools?: unknown }).tools;
    const named = Array.isArray(tools)
      ? tools
      : typeof (step as { tool?: unknown }).tool === 'string'
        ? [(step as { tool: string }).tool]
        : [];
    const changed = named.find((name) => typeof name === 'string' && changedTools.has(name));
    if (changed && !verdicts.has(step.id)) verdicts.set(step.id, `tool '${changed}' of step '${step.id}' changed`);
  }
  // The first added or changed step in the target's order: everything after it may read it.
  let first: { index: number; reason: string } | undefined;
  for (const [index, { step }] of order.entries()) {
    const change = comparison.steps.find((c) => c.stepId === step.id);
    const why =
      change?.kind === 'added'
        ? `added step '${step.id}'`
        : verdicts.has(step.id)
          ? `changed step '${step.id}'`
          : undefined;
    if (why) {
      first = { index, reason: why };
      break;
    }
  }
  return (chain) => {
    for (const stepId of chain) {
      const verdict = verdicts.get(stepId);
      if (verdict) return verdict;
    }
    const leaf = chain.at(-1);
    const index = leaf === undefined ? undefined : position.get(leaf);
    if (index === undefined) return `step '${leaf ?? '?'}' no longer exists`;
    if (first && index > first.index) return `comes after the ${first.reason} in the new version`;
    return undefined;
  };
}
