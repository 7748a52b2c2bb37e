/** `fail`: ends the run as failed with a message. */
import { z } from 'zod';
import { NonRetryableError } from '../errors.ts';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, templateSchema } from '../ir/common.ts';
import type { StepManifest } from './manifest.ts';

export const failStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('fail'),
  message: templateSchema,
});
export type FailStep = z.infer<typeof failStepSchema>;

const failHandler: StepHandler<FailStep, { message: string }> = {
  describeInput(step, ctx) {
    return { message: String(ctx.resolve(step.message)) };
  },
  async execute(_step, _ctx, input) {
    throw new NonRetryableError(input.message);
  },
};

/** Everything `fail` means, for the registry, the validator, code-first, codegen and the editor. */
export const failStep: StepManifest<FailStep> = {
  type: 'fail',
  schema: failStepSchema,
  handler: failHandler,
  fields: {
    message: { kind: 'template', multiline: true },
  },
  positional: ['message'],
  editor: {
    label: 'Fail',
    icon: 'cross',
    description: 'Stop the run with an error message.',
    shape: 'node',
    defaults: { message: 'Stopped' },
  },
};
