/**
 * `loop`: repeats its steps while `while` holds, at most `maxIterations` times. `while` is
 * checked before each iteration with `iteration` = the index about to run, and sees the
 * previous iteration's step outputs (absent before the first: use `?.`).
 * Output: the last iteration's output (null when no iteration ran).
 */
import { z } from 'zod';
import { childScope, type Scope, type StepHandler } from '../interpreter/context.ts';
import { baseStepShape, exprSchema } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';
import { type StepListSchema, stepListSchema } from './step-list.ts';

export const DEFAULT_MAX_ITERATIONS = 100;

export const loopStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('loop'),
  while: exprSchema,
  maxIterations: z.int().min(1).max(10_000).optional(),
  get steps(): StepListSchema {
    return stepListSchema();
  },
});
export type LoopStep = z.infer<typeof loopStepSchema>;

const loopHandler: StepHandler<LoopStep> = {
  async execute(step, ctx) {
    const max = step.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    let previous: Scope = ctx.scope;
    let output: Json = null;
    for (let iteration = 0; iteration < max; iteration++) {
      if (!ctx.resolve(step.while, { ...previous, iteration })) break;
      const scope = childScope(ctx.scope, { iteration });
      output = await ctx.runSteps(step.steps, `${ctx.path}[${iteration}]/`, scope);
      previous = scope;
    }
    return output;
  },
};

/** Everything `loop` means, for the registry, the validator, code-first, codegen and the editor. */
export const loopStep: StepManifest<LoopStep> = {
  type: 'loop',
  schema: loopStepSchema,
  handler: loopHandler,
  fields: {
    while: { kind: 'condition' },
    maxIterations: { kind: 'literal' },
    steps: { kind: 'steps' },
  },
  childRuns: 'repeated',
  body: { names: [{ name: 'iteration', detail: 'the iteration' }] },
  editor: {
    label: 'Loop',
    icon: 'repeat',
    description: 'Repeat the body while a condition holds.',
    shape: 'container',
    defaults: { while: '=false', maxIterations: 3 },
  },
};
