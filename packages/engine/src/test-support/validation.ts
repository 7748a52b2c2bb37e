/** Small builders shared by the validation tests. */
import { expect } from 'vitest';
import type { ValidationIssue } from '../validate/issues.ts';
import { type ValidateOptions, validateFlow } from '../validate/validate.ts';

export const flow = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
  irVersion: 1,
  id: 'main',
  name: 'Main',
  steps,
  ...extra,
});

export const errorsOf = (doc: unknown, options: ValidateOptions = {}): ValidationIssue[] => {
  const result = validateFlow(doc, options);
  return result.ok ? [] : result.errors;
};

/** A transform step: the smallest valid step. */
export const t = (id: string, value: unknown = 1) => ({ id, type: 'transform', value });

export const issue = (stepId: string | null, path: string, message: string | RegExp): ValidationIssue => ({
  stepId,
  path,
  message: typeof message === 'string' ? message : (expect.stringMatching(message) as unknown as string),
});
