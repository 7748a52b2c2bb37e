/**
 * Comparing two versions of a flow step by step: which steps were added, removed or changed
 * (a structural diff of each step's own configuration, its child lists left to the children
 * themselves), and which flow tools changed. The editor colours the canvas from it, and a
 * replay onto the current version reads from it which recorded checkpoints may still answer.
 */
import diff from 'microdiff';
import type { JsonChange } from '../events/compare.ts';
import { isJsonObject, type Json } from '../json.ts';
import { childLists, manifestOf, type Step } from '../steps/registry.ts';
import type { Flow } from './flow.ts';

export type FlowStepChange =
  | { stepId: string; stepType: string; kind: 'same' | 'added' | 'removed' }
  | { stepId: string; stepType: string; kind: 'changed'; changes: JsonChange[] };

export interface FlowComparison {
  /** Every step of B in document order (which is execution order for sequential steps), then those only A has. */
  steps: FlowStepChange[];
  /** Flow tools (`flow.tools`) added, removed or changed, by name. */
  tools: { name: string; kind: 'added' | 'removed' | 'changed' }[];
  /** Whether the input schema and the output mapping are the same. */
  input: { same: boolean; changes: JsonChange[] };
  output: { same: boolean; changes: JsonChange[] };
}

/** Every step of a flow, depth first in document order, each with its own configuration. */
export function flowStepsInOrder(flow: Pick<Flow, 'steps'>): { step: Step; config: Record<string, Json> }[] {
  const found: { step: Step; config: Record<string, Json> }[] = [];
  const walk = (steps: readonly Step[]) => {
    for (const step of steps) {
      found.push({ step, config: ownConfig(step) });
      for (const list of childLists(step)) walk(list.steps);
    }
  };
  walk(flow.steps);
  return found;
}

/**
 * The step's configuration without its child steps: a case keeps its condition (`when`) but not
 * its arm, so a step added inside an arm changes the arm's steps only, never the branch.
 */
function ownConfig(step: Step): Record<string, Json> {
  const config: Record<string, Json> = {};
  const fields = manifestOf(step.type).fields as Record<string, { kind: string }>;
  for (const [key, value] of Object.entries(step as unknown as Record<string, Json>)) {
    const kind = Object.hasOwn(fields, key) ? fields[key]?.kind : undefined;
    if (kind === 'steps' || kind === 'named-steps') config[key] = listNames(value);
    else if (kind === 'cases' && Array.isArray(value))
      config[key] = value.map((item) => (isJsonObject(item) ? { ...item, steps: null } : item));
    else config[key] = value;
  }
  return config;
}

/** A `named-steps` field keeps its branch names (a branch added is a change of the step); a plain list nothing. */
function listNames(value: Json): Json {
  return isJsonObject(value) ? Object.keys(value).sort() : null;
}

export function compareFlows(
  a: Pick<Flow, 'steps'> & Partial<Flow>,
  b: Pick<Flow, 'steps'> & Partial<Flow>,
): FlowComparison {
  const before = new Map(flowStepsInOrder(a).map((entry) => [entry.step.id, entry]));
  const after = flowStepsInOrder(b);
  const steps: FlowStepChange[] = [];
  for (const { step, config } of after) {
    const old = before.get(step.id);
    if (!old) {
      steps.push({ stepId: step.id, stepType: step.type, kind: 'added' });
      continue;
    }
    const changes = diff(old.config, config);
    steps.push(
      changes.length === 0
        ? { stepId: step.id, stepType: step.type, kind: 'same' }
        : { stepId: step.id, stepType: step.type, kind: 'changed', changes },
    );
  }
  const kept = new Set(after.map((entry) => entry.step.id));
  for (const [stepId, { step }] of before)
    if (!kept.has(stepId)) steps.push({ stepId, stepType: step.type, kind: 'removed' });
  const toolsA = (a.tools ?? {}) as Record<string, Json>;
  const toolsB = (b.tools ?? {}) as Record<string, Json>;
  const tools: FlowComparison['tools'] = [];
  for (const name of new Set([...Object.keys(toolsA), ...Object.keys(toolsB)])) {
    if (!Object.hasOwn(toolsA, name)) tools.push({ name, kind: 'added' });
    else if (!Object.hasOwn(toolsB, name)) tools.push({ name, kind: 'removed' });
    else if (diff({ tool: toolsA[name] ?? null }, { tool: toolsB[name] ?? null }).length > 0)
      tools.push({ name, kind: 'changed' });
  }
  const inputChanges = diff({ input: (a.input ?? null) as Json }, { input: (b.input ?? null) as Json });
  const outputChanges = diff({ output: (a.output ?? null) as Json }, { output: (b.output ?? null) as Json });
  return {
    steps,
    tools,
    input: { same: inputChanges.length === 0, changes: inputChanges },
    output: { same: outputChanges.length === 0, changes: outputChanges },
  };
}
