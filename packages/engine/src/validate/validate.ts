/**
 * `validateFlow`: schema, then every check the schema cannot express. Never throws: every
 * problem comes back as a value naming the step and the JSON path, so an editor can pin it to
 * a node and the CLI can list them all at once.
 */

import { parseFlowRef } from '../interpreter/flow-ref.ts';
import { FIRST_TOOL_CALL, type Flow, flowSchema } from '../ir/flow.ts';
import { inputSchemaIssues } from '../ir/input-schema.ts';
import { migrateFlow } from '../ir/migrate.ts';
import { checkJsonShape, formatLongPath, MAX_DOCUMENT_DEPTH } from '../json-shape.ts';
import { childLists, manifestOf, type Step } from '../steps/registry.ts';
import { formatPath, type JsonPath, stepIdAt, type ValidationIssue } from './issues.ts';
import { MAX_STEP_NESTING, nestingIssue, rawDuplicateIds } from './raw-steps.ts';
import { checkReferences, idsIn } from './references.ts';

export { MAX_STEP_NESTING };

export interface ValidateOptions {
  /** Names of tools the host application registers (besides the flow's own `tools`). */
  hostTools?: readonly string[];
  /**
   * Other flows by id, for `spawn` and flow tools. When given, a reference to a flow not in it
   * is an error, and spawn cycles through these flows are found.
   */
  flows?: ReadonlyMap<string, unknown>;
}

export type ValidationResult = { ok: true; flow: Flow } | { ok: false; errors: ValidationIssue[] };

export function validateFlow(doc: unknown, options: ValidateOptions = {}): ValidationResult {
  const migrated = migrateFlow(doc);
  if (!migrated.ok) return { ok: false, errors: [{ stepId: null, path: 'irVersion', message: migrated.message }] };
  const tooDeep = nestingIssue(migrated.doc);
  if (tooDeep) return { ok: false, errors: [tooDeep] };
  // Before anything recursive reads it: too deep a value, or a `__proto__` key, is one clear error.
  const shape = checkJsonShape(migrated.doc, MAX_DOCUMENT_DEPTH, { refuseProtoKeys: true });
  if (shape) {
    const { path, message } = shape;
    return { ok: false, errors: [{ stepId: stepIdAt(migrated.doc, path), path: formatLongPath(path), message }] };
  }
  const parsed = flowSchema.safeParse(migrated.doc);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => schemaIssue(migrated.doc, issue));
    return { ok: false, errors: dedupe([...errors, ...rawDuplicateIds(migrated.doc)]) };
  }
  const flow = parsed.data;
  const errors = [...checkStructure(flow, options), ...checkReferences(flow, new Set(idsIn(flow.steps)))];
  return errors.length === 0 ? { ok: true, flow } : { ok: false, errors };
}

/**
 * Whether a flow names other flows (a spawn, a flow tool): its validity then depends on them
 * too, so a caller may reuse a validation only for a flow that names none.
 */
export function namesOtherFlows(flow: Flow): boolean {
  if (Object.values(flow.tools ?? {}).some((tool) => tool.flow !== undefined)) return true;
  let named = false;
  const ignore = () => {};
  const visit = (steps: readonly Step[]) => {
    for (const step of steps) {
      manifestOf(step.type).check?.(step, { issue: ignore, tool: ignore, flowRef: () => (named = true) });
      for (const list of childLists(step)) visit(list.steps);
    }
  };
  visit(flow.steps);
  return named;
}

function schemaIssue(
  doc: unknown,
  issue: { path: PropertyKey[]; message: string; code: string; options?: unknown; issues?: unknown },
): ValidationIssue {
  const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
  let message = issue.message;
  if (issue.code === 'invalid_union' && path.at(-1) === 'type' && Array.isArray(issue.options)) {
    message = `unknown step type; expected one of: ${issue.options.join(', ')}`;
  }
  // zod reports a bad record key as "Invalid key in record"; the key schema's own message says why.
  if (issue.code === 'invalid_key' && Array.isArray(issue.issues)) {
    const inner = (issue.issues[0] as { message?: unknown } | undefined)?.message;
    if (typeof inner === 'string') message = inner;
  }
  return { stepId: stepIdAt(doc, path), path: formatPath(path), message };
}

/** Checks on the parsed document that are not about data flow. */
function checkStructure(flow: Flow, options: ValidateOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Map<string, string>();
  const toolNames = new Set([...Object.keys(flow.tools ?? {}), ...(options.hostTools ?? [])]);

  if (flow.input) {
    for (const issue of inputSchemaIssues(flow.input)) {
      issues.push({ stepId: null, path: formatPath(['input', ...issue.path]), message: issue.message });
    }
  }

  for (const [name, tool] of Object.entries(flow.tools ?? {})) {
    const kinds = [tool.source, tool.flow, tool.http].filter((kind) => kind !== undefined).length;
    if (kinds !== 1) {
      issues.push({
        stepId: null,
        path: formatPath(['tools', name]),
        message: 'a tool needs exactly one of source, flow or http',
      });
    }
    if (tool.flow !== undefined) checkFlowRef(tool.flow, flow, options, null, ['tools', name, 'flow'], issues);
  }

  const visit = (steps: readonly Step[], path: JsonPath) => {
    steps.forEach((step, index) => {
      const at = [...path, index];
      const firstPath = seen.get(step.id);
      if (firstPath !== undefined) {
        issues.push({
          stepId: step.id,
          path: formatPath([...at, 'id']),
          message: `duplicate step id '${step.id}' (first used at ${firstPath})`,
        });
      } else {
        seen.set(step.id, formatPath(at));
      }
      checkStep(step, at, flow, options, toolNames, issues);
      for (const list of childLists(step)) visit(list.steps, [...at, ...list.path]);
    });
  };
  visit(flow.steps, ['steps']);
  checkFlowSettings(flow, seen, issues);
  return issues;
}

/** `handoff.at` and `chat.textSteps` name steps of this flow; `chat.messageInput` an input property. */
function checkFlowSettings(flow: Flow, stepIds: ReadonlyMap<string, string>, issues: ValidationIssue[]): void {
  if (flow.handoff && flow.handoff.at !== FIRST_TOOL_CALL && !stepIds.has(flow.handoff.at)) {
    issues.push({
      stepId: null,
      path: 'handoff.at',
      message: `'${flow.handoff.at}' is neither "${FIRST_TOOL_CALL}" nor a step of this flow`,
    });
  }
  const llmIds = new Set<string>();
  const collect = (steps: readonly Step[]) => {
    for (const step of steps) {
      if (step.type === 'llm') llmIds.add(step.id);
      for (const list of childLists(step)) collect(list.steps);
    }
  };
  collect(flow.steps);
  flow.chat?.textSteps?.forEach((id, index) => {
    if (!llmIds.has(id))
      issues.push({
        stepId: null,
        path: formatPath(['chat', 'textSteps', index]),
        message: `'${id}' is not an llm step of this flow`,
      });
  });
  const property = flow.chat?.messageInput;
  const declared = (flow.input as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (property !== undefined && declared !== undefined && !Object.hasOwn(declared, property))
    issues.push({
      stepId: null,
      path: 'chat.messageInput',
      message: `the input schema has no property '${property}'`,
    });
}

/** The type's own checks (its manifest's `check`), reported at the step's path. */
function checkStep(
  step: Step,
  at: JsonPath,
  flow: Flow,
  options: ValidateOptions,
  toolNames: ReadonlySet<string>,
  issues: ValidationIssue[],
): void {
  manifestOf(step.type).check?.(step, {
    issue(path, message) {
      issues.push({ stepId: step.id, path: formatPath([...at, ...path]), message });
    },
    tool(name, path) {
      if (toolNames.has(name)) return;
      const known = [...toolNames].join(', ') || 'none';
      issues.push({
        stepId: step.id,
        path: formatPath([...at, ...path]),
        message: `unknown tool '${name}' (known tools: ${known})`,
      });
    },
    flowRef(text, path) {
      checkFlowRef(text, flow, options, step.id, [...at, ...path], issues);
    },
  });
}

function checkFlowRef(
  text: string,
  flow: Flow,
  options: ValidateOptions,
  stepId: string | null,
  path: JsonPath,
  issues: ValidationIssue[],
): void {
  const ref = parseFlowRef(text);
  if (!ref) {
    issues.push({
      stepId,
      path: formatPath(path),
      message: `'${text}' is not a flow reference ("flow-id" or "flow-id@3")`,
    });
    return;
  }
  if (ref.id === flow.id) {
    issues.push({ stepId, path: formatPath(path), message: `flow '${flow.id}' spawns itself` });
    return;
  }
  if (!options.flows) return;
  if (!options.flows.has(ref.id)) {
    issues.push({ stepId, path: formatPath(path), message: `unknown flow '${ref.id}'` });
    return;
  }
  const cycle = findCycle(ref.id, flow.id, options.flows);
  if (cycle)
    issues.push({ stepId, path: formatPath(path), message: `spawn cycle: ${[flow.id, ...cycle].join(' → ')}` });
}

/** A chain of spawns from `start` that leads back to `target`, if any. */
function findCycle(start: string, target: string, flows: ReadonlyMap<string, unknown>): string[] | undefined {
  const visited = new Set<string>();
  const search = (id: string, chain: string[]): string[] | undefined => {
    if (id === target) return chain;
    if (visited.has(id)) return undefined;
    visited.add(id);
    for (const next of spawnTargets(flows.get(id))) {
      const found = search(next, [...chain, next]);
      if (found) return found;
    }
    return undefined;
  };
  return search(start, [start]);
}

/** Flow ids a (possibly invalid) flow document spawns, read loosely. */
function spawnTargets(doc: unknown): string[] {
  const targets: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if ((record.type === 'spawn' || 'parameters' in record) && typeof record.flow === 'string') {
      const ref = parseFlowRef(record.flow);
      if (ref) targets.push(ref.id);
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'ui') visit(value);
  };
  visit(doc);
  return targets;
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
