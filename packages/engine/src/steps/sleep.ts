/** `sleep`: a durable timer — a crash during the sleep resumes with the remaining time only. */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, durationSchema } from '../ir/common.ts';
import { durationMs } from '../ir/duration.ts';
import type { StepManifest } from './manifest.ts';

export const sleepStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('sleep'),
  duration: durationSchema,
});
export type SleepStep = z.infer<typeof sleepStepSchema>;

const sleepHandler: StepHandler<SleepStep> = {
  describeInput(step) {
    return { duration: step.duration };
  },
  async execute(step, ctx) {
    const { until } = await ctx.host.sleep(ctx.path, durationMs(step.duration));
    return { until };
  },
};

/** Everything `sleep` means, for the registry, the validator, code-first, codegen and the editor. */
export const sleepStep: StepManifest<SleepStep> = {
  type: 'sleep',
  schema: sleepStepSchema,
  handler: sleepHandler,
  fields: {
    duration: { kind: 'duration' },
  },
  positional: ['duration'],
  editor: {
    label: 'Sleep',
    icon: 'moon',
    description: 'Wait durably for a duration.',
    shape: 'node',
    defaults: { duration: '1s' },
  },
};
