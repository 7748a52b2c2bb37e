/** `tool`: calls a named tool (the flow's own or one the host registered) with evaluated args. */
import { z } from 'zod';
import type { StepHandler } from '../interpreter/context.ts';
import { asRecordedReturn } from '../interpreter/legacy-turns.ts';
import { callTool } from '../interpreter/tools.ts';
import { argsSchema, baseStepShape } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';

export const toolStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('tool'),
  tool: z.string().min(1),
  args: argsSchema.optional(),
});
export type ToolStep = z.infer<typeof toolStepSchema>;

const toolHandler: StepHandler<ToolStep, { tool: string; args: Json }> = {
  describeInput(step, ctx) {
    return { tool: step.tool, args: ctx.resolve(step.args ?? {}) };
  },
  execute(step, ctx, input) {
    // callTool never throws (its failures reject), so the call can be made before the hop.
    return asRecordedReturn(ctx.options, callTool(step.tool, input.args, ctx.path, ctx));
  },
};

/** Everything `tool` means, for the registry, the validator, code-first, codegen and the editor. */
export const toolStep: StepManifest<ToolStep> = {
  type: 'tool',
  schema: toolStepSchema,
  handler: toolHandler,
  fields: {
    tool: { kind: 'literal' },
    args: { kind: 'args' },
  },
  positional: ['tool', 'args'],
  check(step, checks) {
    checks.tool(step.tool, ['tool']);
  },
  editor: {
    label: 'Tool',
    icon: 'wrench',
    description: 'Call a registered tool with arguments.',
    shape: 'node',
    defaults: { tool: 'echo', args: {} },
  },
};
