/** Building blocks shared by every step schema. */
import { z } from 'zod';
import { FORBIDDEN_PROPERTIES } from '../expr/limits.ts';
import { DURATION_HINT, parseDuration } from './duration.ts';

/**
 * Step ids are identifiers so expressions can read `steps.<id>` without quoting. The names
 * expressions refuse to read (`__proto__`, `constructor`, …) are refused as ids: such a step's
 * output could never be read, and `__proto__` cannot even be stored as a plain key.
 */
export const stepIdSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an identifier: letters, digits and _, starting with a letter or _')
  .refine((id) => !FORBIDDEN_PROPERTIES.has(id), {
    message: 'is reserved by JavaScript (it names an object prototype member), so it cannot be a step id',
  });

/** Flow ids are slugs: lowercase letters, digits, - and _. */
export const flowIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a slug: lowercase letters, digits, - and _');

export const durationSchema = z.string().refine((text) => parseDuration(text) !== undefined, {
  message: `must be ${DURATION_HINT}`,
});

/** "=expr": a whole-value expression. */
export const exprSchema = z.string().startsWith('=', 'must be an expression starting with "="');

/** A string that may hold `{{ expr }}` interpolations (or be a whole "=expr"). */
export const templateSchema = z.string();

/** A value whose strings are expressions/templates, resolved against the run's scope. */
export const valueSchema = z.unknown();

/** An object whose values are Exprs (or literals). */
export const argsSchema = z.record(z.string(), z.unknown());

export const retrySchema = z.strictObject({
  maxAttempts: z.int().min(1).max(100),
  backoff: z.enum(['fixed', 'exponential']).default('exponential'),
  initialDelay: durationSchema.default('1s'),
  maxDelay: durationSchema.optional(),
});

export const jsonSchemaSchema = z.record(z.string(), z.unknown());

/** Fields every step has. `type` is added by each step's own schema. */
export const baseStepShape = {
  id: stepIdSchema,
  name: z.string().max(200).optional(),
  retry: retrySchema.optional(),
  timeout: durationSchema.optional(),
};
