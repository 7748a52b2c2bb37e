/**
 * `code`: a JavaScript function body run in the host's QuickJS sandbox with `args`, `input`
 * and `steps`. Checkpointed, so a replay never re-runs it.
 */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { argsSchema, baseStepShape } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';

export const codeStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('code'),
  source: z.string().min(1).max(100_000),
  args: argsSchema.optional(),
});
export type CodeStep = z.infer<typeof codeStepSchema>;

const codeHandler: StepHandler<CodeStep, { args: Json }> = {
  describeInput(step, ctx) {
    return { args: ctx.resolve(step.args ?? {}) };
  },
  async execute(step, ctx, input) {
    // A flat copy (the scope's is layered per map/loop iteration); keys are step ids, so no prototype.
    const steps: Record<string, { output: Json }> = Object.assign(Object.create(null), ctx.scope.steps);
    return ctx.host.run(
      ctx.path,
      { kind: 'code', input: { source: step.source, args: input.args, input: ctx.scope.input, steps } },
      ctx.policy,
    );
  },
};

/** Everything `code` means, for the registry, the validator, code-first, codegen and the editor. */
export const codeStep: StepManifest<CodeStep> = {
  type: 'code',
  schema: codeStepSchema,
  handler: codeHandler,
  fields: {
    source: { kind: 'code' },
    args: { kind: 'args' },
  },
  positional: ['source', 'args'],
  editor: {
    label: 'Code',
    icon: 'braces',
    description: 'Run sandboxed JavaScript on args, input and steps.',
    shape: 'node',
    defaults: { source: 'return args;', args: {} },
  },
};
