/**
 * The schema of a nested list of steps. Container steps reach the full step union through
 * getters, so the recursive schema resolves lazily (no import-order trap); the interfaces give
 * TypeScript a lazily-resolved name for the recursive types, which breaks its cycle check.
 */
import { z } from 'zod';
import { stepSchema } from './registry.ts';

export interface StepListSchema extends z.ZodArray<typeof stepSchema> {}
export interface OptionalStepListSchema extends z.ZodOptional<StepListSchema> {}

export function stepListSchema(): StepListSchema {
  return z.array(stepSchema);
}

export function optionalStepListSchema(): OptionalStepListSchema {
  return z.array(stepSchema).optional();
}
