/** `spawn`: runs another flow as a child run and returns its output. */
import { z } from 'zod';
import { NonRetryableError } from '../errors.ts';
import type { StepHandler } from '../interpreter/context.ts';
import { parseFlowRef } from '../interpreter/flow-ref.ts';
import { argsSchema, baseStepShape } from '../ir/common.ts';
import type { Json } from '../json.ts';

export const spawnStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('spawn'),
  /** "flow-id" (latest version) or "flow-id@3". */
  flow: z.string().refine((text) => parseFlowRef(text) !== undefined, {
    message: 'must be a flow id, optionally with a version: "triage" or "triage@3"',
  }),
  input: argsSchema.optional(),
});
export type SpawnStep = z.infer<typeof spawnStepSchema>;

export const spawnHandler: StepHandler<SpawnStep, { flow: string; input: Json }> = {
  describeInput(step, ctx) {
    return { flow: step.flow, input: ctx.resolve(step.input ?? {}) };
  },
  async execute(step, ctx, input) {
    const ref = parseFlowRef(step.flow);
    if (!ref) throw new NonRetryableError(`'${step.flow}' is not a flow reference`);
    return ctx.host.spawn(ctx.path, ref, input.input);
  },
};
