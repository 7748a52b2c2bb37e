/** `fail`: ends the run as failed with a message. */
import { z } from 'zod';
import { NonRetryableError } from '../errors.ts';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, templateSchema } from '../ir/common.ts';

export const failStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('fail'),
  message: templateSchema,
});
export type FailStep = z.infer<typeof failStepSchema>;

export const failHandler: StepHandler<FailStep, { message: string }> = {
  describeInput(step, ctx) {
    return { message: String(ctx.resolve(step.message)) };
  },
  async execute(_step, _ctx, input) {
    throw new NonRetryableError(input.message);
  },
};
