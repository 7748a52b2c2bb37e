/**
 * Data-flow checks: every `steps.<id>` an expression reads must name a step that has run on
 * every path to the reader. Walks the structured flow keeping the set of steps that have
 * definitely completed: a branch adds only what all its arms add, a parallel adds all its
 * branches, map/loop bodies are visible inside the body only.
 */
import { DEFAULT_ITEM_NAME, type InspectIssue, inspectValue } from '../expr/index.ts';
import type { Flow } from '../ir/flow.ts';
import { childLists, type Step } from '../steps/registry.ts';
import { formatPath, type JsonPath, type ValidationIssue } from './issues.ts';

/** Names that are in scope somewhere (their message says where); any other is unknown. */
const KNOWN_NAMES: ReadonlySet<string> = new Set(['input', 'steps', DEFAULT_ITEM_NAME, 'index', 'iteration', 'args']);

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
      for (const field of expressionFields(step)) {
        checkValue((step as Record<string, unknown>)[field], [...at, field], step.id, available, frame);
      }
      switch (step.type) {
        case 'branch': {
          step.cases.forEach((branchCase, caseIndex) => {
            checkValue(branchCase.when, [...at, 'cases', caseIndex, 'when'], step.id, available, frame);
          });
          const arms = [
            ...step.cases.map((branchCase, caseIndex) =>
              walk(branchCase.steps, [...at, 'cases', caseIndex, 'steps'], new Set(available), frame),
            ),
            walk(step.else ?? [], [...at, 'else'], new Set(available), frame),
          ];
          for (const id of arms[0]!) if (arms.every((arm) => arm.has(id))) available.add(id);
          break;
        }
        case 'parallel': {
          // Every branch starts from what ran before the parallel step, never from a sibling.
          const before = new Set(available);
          for (const [name, branch] of Object.entries(step.branches)) {
            for (const id of walk(branch, [...at, 'branches', name], new Set(before), frame)) available.add(id);
          }
          break;
        }
        case 'map': {
          const roots = new Set<string>([...frame.roots, step.as ?? DEFAULT_ITEM_NAME, 'index']);
          walk(step.steps, [...at, 'steps'], new Set(available), { roots });
          break;
        }
        case 'loop': {
          const bodyIds = new Set(idsIn(step.steps));
          const roots = new Set<string>([...frame.roots, 'iteration']);
          // `while` may read the previous iteration's outputs (absent before the first one).
          checkValue(step.while, [...at, 'while'], step.id, available, { roots }, bodyIds);
          walk(step.steps, [...at, 'steps'], new Set(available), { roots });
          break;
        }
        default:
          break;
      }
      available.add(step.id);
    });
    return available;
  };

  const done = walk(flow.steps, ['steps'], new Set(), top);
  if (flow.output !== undefined) checkValue(flow.output, ['output'], null, done, top);
  for (const [name, tool] of Object.entries(flow.tools ?? {})) {
    if (tool.http)
      checkValue(tool.http, ['tools', name, 'http'], null, new Set(), { roots: new Set(['args', 'input']) });
  }
  return issues;
}

/** The config fields of each step type that hold expressions or templates. */
function expressionFields(step: Step): string[] {
  switch (step.type) {
    case 'llm':
      return ['system', 'prompt', 'messages'];
    case 'tool':
    case 'code':
      return ['args'];
    case 'http':
      return ['url', 'headers', 'body'];
    case 'transform':
      return ['value'];
    case 'map':
      return ['items'];
    case 'approval':
      return ['prompt'];
    case 'spawn':
      return ['input'];
    case 'fail':
      return ['message'];
    case 'branch':
    case 'loop':
    case 'parallel':
    case 'sleep':
      return [];
  }
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
  return steps.flatMap((step) => [step.id, ...childLists(step).flatMap((list) => idsIn(list.steps))]);
}

function rootMessage(root: string, frame: Frame): string {
  switch (root) {
    case DEFAULT_ITEM_NAME:
    case 'index':
      return `'${root}' can only be read inside a map`;
    case 'iteration':
      return `'iteration' can only be read inside a loop`;
    case 'args':
      return `'args' can only be read in a tool definition`;
    case 'input':
    case 'steps':
      return `'${root}' cannot be read here`;
    default:
      return `unknown name '${root}'; expressions can read ${[...frame.roots].join(', ')} here (a map names its item with 'as')`;
  }
}
