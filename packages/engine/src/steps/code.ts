/**
 * `code`: a JavaScript function body run in the host's QuickJS sandbox with `args`, `input`
 * and `steps`. Checkpointed, so a replay never re-runs it.
 */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { argsSchema, baseStepShape } from '../ir/common.ts';
import type { Json } from '../json.ts';

export const codeStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('code'),
  source: z.string().min(1).max(100_000),
  args: argsSchema.optional(),
});
export type CodeStep = z.infer<typeof codeStepSchema>;

export const codeHandler: StepHandler<CodeStep, { args: Json }> = {
  describeInput(step, ctx) {
    return { args: ctx.resolve(step.args ?? {}) };
  },
  async execute(step, ctx, input) {
    const steps: Record<string, { output: Json }> = {};
    for (const id in ctx.scope.steps) steps[id] = ctx.scope.steps[id]!;
    return ctx.host.run(
      ctx.path,
      { kind: 'code', input: { source: step.source, args: input.args, input: ctx.scope.input, steps } },
      ctx.policy,
    );
  },
};
