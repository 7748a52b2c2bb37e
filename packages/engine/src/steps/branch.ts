/** `branch`: runs the first case whose `when` is truthy, else the `else` arm. Output: the arm's last output. */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { baseStepShape, exprSchema } from '../ir/common.ts';
import type { StepManifest } from './manifest.ts';
import {
  type OptionalStepListSchema,
  optionalStepListSchema,
  type StepListSchema,
  stepListSchema,
} from './step-list.ts';

const branchCaseSchema = z.strictObject({
  when: exprSchema,
  get steps(): StepListSchema {
    return stepListSchema();
  },
});

export const branchStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('branch'),
  // Getters keep the recursive schema lazy (and its type inferable); see step-list.ts.
  get cases(): z.ZodArray<typeof branchCaseSchema> {
    return z.array(branchCaseSchema).min(1, 'a branch needs at least one case');
  },
  get else(): OptionalStepListSchema {
    return optionalStepListSchema();
  },
});
export type BranchStep = z.infer<typeof branchStepSchema>;

const branchHandler: StepHandler<BranchStep, { arm: number | 'else' }> = {
  describeInput(step, ctx) {
    const arm = step.cases.findIndex((branchCase) => Boolean(ctx.resolve(branchCase.when)));
    return { arm: arm === -1 ? 'else' : arm };
  },
  async execute(step, ctx, { arm }) {
    const steps = arm === 'else' ? (step.else ?? []) : step.cases[arm]!.steps;
    return ctx.runSteps(steps, `${ctx.path}/`, ctx.scope);
  },
};

/** Everything `branch` means, for the registry, the validator, code-first, codegen and the editor. */
export const branchStep: StepManifest<BranchStep> = {
  type: 'branch',
  schema: branchStepSchema,
  handler: branchHandler,
  fields: {
    cases: { kind: 'cases' },
    else: { kind: 'steps' },
  },
  childRuns: 'alternatives',
  editor: {
    label: 'Branch',
    icon: 'diamond',
    description: 'Take the first case whose condition holds, else the else arm.',
    shape: 'fan-out',
    defaults: { cases: [{ when: '=true' }] },
  },
};
