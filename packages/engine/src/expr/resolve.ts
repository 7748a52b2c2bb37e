/** Config values: strings that are expressions or templates, inside any JSON structure. */
import { ExpressionError } from '../errors.ts';
import type { Json, JsonObject } from '../json.ts';
import { compileExpression } from './compile.ts';
import { compileTemplate } from './template.ts';
import type { ExprScope, InspectReport, StepRef } from './types.ts';
import { isPlainObject, safeSet, toJsonValue } from './values.ts';

/** A string starting with '=' is an expression. */
export function isExpression(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('=');
}

/** A string containing '{{' is a template (unless it is an expression). */
export function isTemplate(value: unknown): value is string {
  return typeof value === 'string' && value.includes('{{');
}

/**
 * Resolves a config value: '=expr' → evaluated; a string with {{ }} → rendered; arrays/plain
 * objects → resolved recursively; anything else as-is. The result is JSON (undefined → null).
 * Throws ExpressionError.
 */
export function resolveValue(value: unknown, scope: ExprScope): Json {
  if (typeof value === 'string') {
    if (value.startsWith('=')) return toJsonValue(compileExpression(value).evaluate(scope));
    if (value.includes('{{')) return compileTemplate(value).render(scope);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, scope));
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) safeSet(out, key, resolveValue(value[key], scope));
    return out;
  }
  return toJsonValue(value);
}

/**
 * Static analysis for validation: compiles every expression/template inside `value`
 * (recursively) and reports problems by path. Never throws.
 */
export function inspectValue(value: unknown): InspectReport {
  const report: InspectReport = { issues: [], roots: new Set<string>(), names: [], stepRefs: [] };
  const seen = new Set<string>();
  const add = (roots: ReadonlySet<string>, refs: readonly StepRef[]) => {
    for (const root of roots) report.roots.add(root);
    for (const ref of refs) {
      const key = JSON.stringify(ref);
      if (!seen.has(key)) {
        seen.add(key);
        report.stepRefs.push({ stepId: ref.stepId, path: [...ref.path] });
      }
    }
  };
  const visit = (v: unknown, path: (string | number)[], depth: number): void => {
    if (typeof v === 'string') {
      if (!isExpression(v) && !isTemplate(v)) return;
      try {
        const compiled = isExpression(v) ? compileExpression(v) : compileTemplate(v);
        add(compiled.roots, compiled.stepRefs);
        for (const [name, position] of compiled.namePositions) report.names.push({ name, path, position });
      } catch (error) {
        const issue = { path, message: error instanceof Error ? error.message : String(error) };
        report.issues.push(
          error instanceof ExpressionError && error.position !== undefined
            ? { ...issue, position: error.position }
            : issue,
        );
      }
      return;
    }
    if (depth > 200) {
      report.issues.push({ path, message: 'value is nested too deeply to inspect' });
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) visit(v[i], [...path, i], depth + 1);
    } else if (isPlainObject(v)) for (const key of Object.keys(v)) visit(v[key], [...path, key], depth + 1);
  };
  visit(value, [], 0);
  return report;
}
