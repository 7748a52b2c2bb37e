/** `transform`: computes a value from expressions. Pure, so never checkpointed. */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, valueSchema } from '../ir/common.ts';
import type { StepManifest } from './manifest.ts';

export const transformStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('transform'),
  /** An Expr, or an object/array whose strings are Exprs/Templates. */
  value: valueSchema,
});
export type TransformStep = z.infer<typeof transformStepSchema>;

const transformHandler: StepHandler<TransformStep> = {
  async execute(step, ctx) {
    return ctx.resolve(step.value);
  },
};

/** Everything `transform` means, for the registry, the validator, code-first, codegen and the editor. */
export const transformStep: StepManifest<TransformStep> = {
  type: 'transform',
  schema: transformStepSchema,
  handler: transformHandler,
  fields: {
    value: { kind: 'value' },
  },
  editor: {
    label: 'Transform',
    icon: 'function',
    description: 'Compute a value from expressions.',
    shape: 'node',
    defaults: { value: '=input' },
  },
};
