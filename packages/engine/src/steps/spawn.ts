/** `spawn`: runs another flow as a child run and returns its output. */
import { z } from 'zod';
import { NonRetryableError } from '../errors.ts';
import type { StepHandler } from '../interpreter/context.ts';
import { parseFlowRef } from '../interpreter/flow-ref.ts';
import { argsSchema, baseStepShape } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';

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

const spawnHandler: StepHandler<SpawnStep, { flow: string; input: Json }> = {
  describeInput(step, ctx) {
    return { flow: step.flow, input: ctx.resolve(step.input ?? {}) };
  },
  async execute(step, ctx, input) {
    const ref = parseFlowRef(step.flow);
    if (!ref) throw new NonRetryableError(`'${step.flow}' is not a flow reference`);
    return ctx.host.spawn(ctx.path, ref, input.input);
  },
};

/** Everything `spawn` means, for the registry, the validator, code-first, codegen and the editor. */
export const spawnStep: StepManifest<SpawnStep> = {
  type: 'spawn',
  schema: spawnStepSchema,
  handler: spawnHandler,
  fields: {
    flow: { kind: 'literal' },
    input: { kind: 'args' },
  },
  positional: ['flow', 'input'],
  check(step, checks) {
    checks.flowRef(step.flow, ['flow']);
  },
  editor: {
    label: 'Spawn',
    icon: 'external',
    description: 'Run another flow as a child and use its output.',
    shape: 'node',
    defaults: { flow: 'other-flow' },
  },
};
