/**
 * Data-flow checks: every `steps.<id>` an expression reads must name a step that has run on
 * every path to the reader. Walks the structured flow keeping the set of steps that have
 * definitely completed: a branch adds only what all its arms add, a parallel adds all its
 * branches, map/loop bodies are visible inside the body only.
 */
import { type InspectIssue, inspectValue } from '../expr/index.ts';
import type { Flow } from '../ir/flow.ts';
import { bodyNames, type FieldSpec } from '../steps/manifest.ts';
import { childLists, manifestOf, STEP_TYPES, type Step, type StepType } from '../steps/registry.ts';
import { formatPath, type JsonPath, type ValidationIssue } from './issues.ts';

/** The step type whose body can read each body name (`item` and `index`: map; `iteration`: loop). */
const BODY_NAME_OWNERS: ReadonlyMap<string, StepType> = new Map(
  STEP_TYPES.flatMap((type) => (manifestOf(type).body?.names ?? []).map(({ name }) => [name, type] as const)),
);

/** Names that are in scope somewhere (their message says where); any other is unknown. */
const KNOWN_NAMES: ReadonlySet<string> = new Set(['input', 'steps', ...BODY_NAME_OWNERS.keys(), 'args']);

interface Frame {
  /** The names expressions can read here: built-in roots and the enclosing maps' items. */
  roots: ReadonlySet<string>;
}

export function checkReferences(flow: Flow, allIds: ReadonlySet<string>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const top: Frame = { roots: new Set(['input', 'steps']) };

  const checkValue = (
    value: unknown,
    path: JsonPath,
    stepId: string | null,
    available: ReadonlySet<string>,
    frame: Frame,
    extraIds: ReadonlySet<string> = new Set(),
  ) => {
    const report = inspectValue(value);
    for (const issue of report.issues)
      issues.push({ stepId, path: formatPath([...path, ...issue.path]), message: withPosition(value, issue) });
    const reported = new Set<string>();
    for (const { name, path: at, position } of report.names) {
      if (frame.roots.has(name) || reported.has(name)) continue;
      reported.add(name);
      const message = rootMessage(name, frame);
      // A name that is not in scope anywhere is pinned to where it is read, like a syntax error.
      const pinned = KNOWN_NAMES.has(name) ? message : withPosition(value, { path: at, position, message });
      issues.push({ stepId, path: formatPath(path), message: pinned });
    }
    // Where `steps` cannot be read at all, that one error says it; no per-step noise.
    for (const ref of frame.roots.has('steps') ? report.stepRefs : []) {
      if (available.has(ref.stepId) || extraIds.has(ref.stepId)) continue;
      const message = allIds.has(ref.stepId)
        ? `reads steps.${ref.stepId}, which has not run yet on every path to here`
        : `reads steps.${ref.stepId}, but there is no step '${ref.stepId}'`;
      issues.push({ stepId, path: formatPath(path), message });
    }
  };

  const walk = (steps: readonly Step[], path: JsonPath, available: Set<string>, frame: Frame): Set<string> => {
    steps.forEach((step, index) => {
      const at = [...path, index];
      const manifest = manifestOf(step.type);
      const record = step as unknown as Record<string, unknown>;
      // The body's own names (a map's item and index, a loop's iteration) join the enclosing ones.
      const body: Frame = { roots: new Set([...frame.roots, ...bodyNames(manifest.body, record)]) };
      for (const [field, spec] of Object.entries(manifest.fields as Record<string, FieldSpec>)) {
        const value = record[field];
        switch (spec.kind) {
          case 'expression':
          case 'template':
          case 'template-record':
          case 'args':
          case 'value':
            checkValue(value, [...at, field], step.id, available, frame);
            break;
          case 'condition':
            // Checked before each run of the body: it may read the previous run's outputs
            // (absent before the first one).
            checkValue(value, [...at, field], step.id, available, body, new Set(childIds(step)));
            break;
          case 'cases':
            (value as { when: string }[]).forEach((branchCase, caseIndex) => {
              checkValue(branchCase.when, [...at, field, caseIndex, 'when'], step.id, available, frame);
            });
            break;
          case 'steps':
          case 'named-steps':
          case 'duration':
          case 'model':
          case 'code':
          case 'json-schema':
          case 'literal':
            break;
        }
      }
      walkChildren(step, at, available, body);
      available.add(step.id);
    });
    return available;
  };

  /** Walks a container's lists, adding to `available` what runs on every path through it. */
  const walkChildren = (step: Step, at: JsonPath, available: Set<string>, body: Frame): void => {
    const runs = manifestOf(step.type).childRuns;
    if (runs === undefined) return;
    const lists = childLists(step);
    switch (runs) {
      case 'alternatives': {
        const arms = lists.map((list) => walk(list.steps, [...at, ...list.path], new Set(available), body));
        // With an optional arm missing (a branch without `else`), the step may run no arm at all.
        if (hasMissingList(step)) arms.push(new Set(available));
        for (const id of arms[0] ?? []) if (arms.every((arm) => arm.has(id))) available.add(id);
        break;
      }
      case 'concurrent': {
        // Every list starts from what ran before the step, never from a sibling.
        const before = new Set(available);
        for (const list of lists) {
          for (const id of walk(list.steps, [...at, ...list.path], new Set(before), body)) available.add(id);
        }
        break;
      }
      case 'repeated':
        for (const list of lists) walk(list.steps, [...at, ...list.path], new Set(available), body);
        break;
    }
  };

  const done = walk(flow.steps, ['steps'], new Set(), top);
  if (flow.output !== undefined) checkValue(flow.output, ['output'], null, done, top);
  for (const [name, tool] of Object.entries(flow.tools ?? {})) {
    if (tool.http)
      checkValue(tool.http, ['tools', name, 'http'], null, new Set(), { roots: new Set(['args', 'input']) });
  }
  return issues;
}

/** The message with where in the config string it happened (1-based, counting the leading '='). */
function withPosition(value: unknown, issue: InspectIssue): string {
  if (issue.position === undefined) return issue.message;
  let text: unknown = value;
  for (const key of issue.path) text = (text as Record<string | number, unknown> | undefined)?.[key];
  // Expression positions count from after the '='; template positions from the start.
  const offset = typeof text === 'string' && text.startsWith('=') ? 1 : 0;
  return `${issue.message} (at character ${issue.position + offset + 1})`;
}

export function idsIn(steps: readonly Step[]): string[] {
  return steps.flatMap((step) => [step.id, ...childIds(step)]);
}

/** The ids of every step nested in a step's lists. */
function childIds(step: Step): string[] {
  return childLists(step).flatMap((list) => idsIn(list.steps));
}

/** Whether a step leaves one of its optional step lists out (a branch without `else`). */
function hasMissingList(step: Step): boolean {
  const record = step as unknown as Record<string, unknown>;
  return Object.entries(manifestOf(step.type).fields as Record<string, FieldSpec>).some(
    ([field, spec]) => spec.kind === 'steps' && record[field] === undefined,
  );
}

function rootMessage(root: string, frame: Frame): string {
  const owner = BODY_NAME_OWNERS.get(root);
  if (owner !== undefined) return `'${root}' can only be read inside a ${owner}`;
  switch (root) {
    case 'args':
      return `'args' can only be read in a tool definition`;
    case 'input':
    case 'steps':
      return `'${root}' cannot be read here`;
    default:
      return `unknown name '${root}'; expressions can read ${[...frame.roots].join(', ')} here (a map names its item with 'as')`;
  }
}
