/** `transform`: computes a value from expressions. Pure, so never checkpointed. */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, valueSchema } from '../ir/common.ts';

export const transformStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('transform'),
  /** An Expr, or an object/array whose strings are Exprs/Templates. */
  value: valueSchema,
});
export type TransformStep = z.infer<typeof transformStepSchema>;

export const transformHandler: StepHandler<TransformStep> = {
  async execute(step, ctx) {
    return ctx.resolve(step.value);
  },
};
