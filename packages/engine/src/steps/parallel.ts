/** `parallel`: runs named branches concurrently. Output: `{ name: last output of that branch }`. */
import { z } from 'zod';
import { FORBIDDEN_PROPERTIES } from '../expr/limits.ts';
import { childScope, type StepHandler } from '../interpreter/context.ts';
import { settleAll } from '../interpreter/settle.ts';
import { baseStepShape } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';
import { type StepListSchema, stepListSchema } from './step-list.ts';

const branchNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'branch names must be identifiers')
  .refine((name) => !FORBIDDEN_PROPERTIES.has(name), 'branch names cannot be names reserved by JavaScript');

export const parallelStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('parallel'),
  get branches(): z.ZodRecord<typeof branchNameSchema, StepListSchema> {
    return z.record(branchNameSchema, stepListSchema());
  },
});
export type ParallelStep = z.infer<typeof parallelStepSchema>;

const parallelHandler: StepHandler<ParallelStep> = {
  async execute(step, ctx) {
    // Each branch works in its own copy of the scope, so what one branch sees never depends on
    // how fast another runs (a `code` step receives every visible output: that must replay
    // identically). Afterwards every branch's outputs are visible, as they all ran.
    const names = Object.keys(step.branches);
    const scopes = names.map(() => childScope(ctx.scope, {}));
    const outputs = await settleAll(
      names.map((name, index) => ctx.runSteps(step.branches[name]!, `${ctx.path}.${name}/`, scopes[index]!)),
    );
    for (const scope of scopes) Object.assign(ctx.scope.steps, scope.steps);
    const result: Record<string, Json> = {};
    names.forEach((name, index) => {
      result[name] = outputs[index]!;
    });
    return result;
  },
};

/** Everything `parallel` means, for the registry, the validator, code-first, codegen and the editor. */
export const parallelStep: StepManifest<ParallelStep> = {
  type: 'parallel',
  schema: parallelStepSchema,
  handler: parallelHandler,
  fields: {
    branches: { kind: 'named-steps' },
  },
  childRuns: 'concurrent',
  editor: {
    label: 'Parallel',
    icon: 'parallel',
    description: 'Run named branches at once, then re-join.',
    shape: 'fan-out',
    defaults: {},
  },
};
