/**
 * Walks the step lists of a raw (not yet parsed) document, iteratively. Used before and beside
 * the schema: to refuse absurd nesting before the recursive schema could overflow the stack,
 * and to still report duplicate ids when the schema fails, so one bad field does not hide them.
 */
import { rawChildLists } from '../steps/registry.ts';
import { formatPath, type JsonPath, stepIdAt, type ValidationIssue } from './issues.ts';

/** Deeper than any real flow, and far from where the recursive schema would overflow the stack. */
export const MAX_STEP_NESTING = 100;

interface RawStep {
  step: Record<string, unknown>;
  path: JsonPath;
  depth: number;
}

/** Every step object in the document's step lists, with its path; stops descending at the limit. */
function rawSteps(doc: unknown): { steps: RawStep[]; tooDeep: JsonPath | undefined } {
  const found: RawStep[] = [];
  const pending: { list: unknown; path: JsonPath; depth: number }[] = [
    { list: (doc as { steps?: unknown } | null)?.steps, path: ['steps'], depth: 1 },
  ];
  while (pending.length > 0) {
    const { list, path, depth } = pending.pop()!;
    if (!Array.isArray(list)) continue;
    if (depth > MAX_STEP_NESTING) return { steps: found, tooDeep: path };
    list.forEach((step, index) => {
      if (typeof step !== 'object' || step === null) return;
      const record = step as Record<string, unknown>;
      const at = [...path, index];
      found.push({ step: record, path: at, depth });
      for (const { path: inner, list } of rawChildLists(record)) {
        pending.push({ list, path: [...at, ...inner], depth: depth + 1 });
      }
    });
  }
  return { steps: found, tooDeep: undefined };
}

/** Step lists nested deeper than MAX_STEP_NESTING: validateFlow must answer, never throw a RangeError. */
export function nestingIssue(doc: unknown): ValidationIssue | undefined {
  const { tooDeep } = rawSteps(doc);
  if (!tooDeep) return undefined;
  return {
    stepId: stepIdAt(doc, tooDeep.slice(0, -1)),
    path: formatPath(tooDeep),
    message: `steps are nested more than ${MAX_STEP_NESTING} levels deep`,
  };
}

/** Duplicate step ids, read loosely from a document the schema rejected. */
export function rawDuplicateIds(doc: unknown): ValidationIssue[] {
  const seen = new Map<string, string>();
  const issues: ValidationIssue[] = [];
  const ordered = rawSteps(doc).steps.sort((a, b) => comparePaths(a.path, b.path));
  for (const { step, path } of ordered) {
    if (typeof step.id !== 'string') continue;
    const first = seen.get(step.id);
    if (first === undefined) seen.set(step.id, formatPath(path));
    else
      issues.push({
        stepId: step.id,
        path: formatPath([...path, 'id']),
        message: `duplicate step id '${step.id}' (first used at ${first})`,
      });
  }
  return issues;
}

/** Document order (the walk itself is depth-first from the end). */
function comparePaths(a: JsonPath, b: JsonPath): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const [x, y] = [a[index]!, b[index]!];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}
