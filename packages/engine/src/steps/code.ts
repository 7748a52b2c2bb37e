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
    const steps = stepsFor(step, ctx.scope.steps);
    return ctx.host.run(
      ctx.path,
      { kind: 'code', input: { source: step.source, args: input.args, input: ctx.scope.input, steps } },
      ctx.policy,
    );
  },
};

/**
 * The earlier steps' outputs a code step is handed: only those its source reads, when that can
 * be seen from the source. Why: the call's input is hashed, journaled, sent to the engine and
 * copied into the sandbox with all it carries; handing every earlier output to every code step
 * made a run's cost grow with the square of its length (a map after three maps of 20 × 90 kB
 * outputs copied 3.6 MB into each of its 20 calls, past the 1 s time limit under load).
 */
function stepsFor(step: CodeStep, scope: Record<string, { output: Json }>): Record<string, { output: Json }> {
  // Keys are step ids: no prototype, so a step named `toString` is only ever its own output.
  const steps: Record<string, { output: Json }> = Object.create(null);
  let read = readByStep.get(step);
  if (read === undefined) {
    read = stepsReadBy(step.source);
    readByStep.set(step, read);
  }
  if (read === null) return Object.assign(steps, scope);
  for (const id of read) if (Object.hasOwn(scope, id)) steps[id] = scope[id]!;
  return steps;
}

// `steps` as a name of its own (not `mysteps`, `$steps`, `steps_2`).
const STEPS_MENTION = /(?<![\w$])steps(?![\w$])/g;
// What may follow a mention for it to read one named step: `.id`, `?.id`, `['id']`, `?.["id"]`.
const MEMBER_READ = /^\s*(?:\??\.\s*([A-Za-z_$][\w$]*)|(?:\?\.)?\s*\[\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)")\s*\])/;
// Ways to reach the parameter without writing its name, or to read any key of it.
const OPAQUE = /(?<![\w$])(?:arguments|eval)(?![\w$])|\\u/;
// Per step object (flows are parsed once and cached): a map's items ask again and again.
const readByStep = new WeakMap<CodeStep, ReadonlySet<string> | null>();

/**
 * The step ids `source` reads from `steps`, when every mention of the name is a member read
 * with a literal key (`steps.fetch.output`, `steps?.['fetch']`); null when it may read any: the
 * object passed on or iterated (`Object.keys(steps)`, `steps[name]`, `{ ...steps }`), reached
 * without its name (`arguments`, `eval`, an escaped identifier) or read for a member every
 * object has (`steps.hasOwnProperty`). A mention inside a comment or a string counts too: it can
 * only widen what is handed over, never narrow it.
 */
export function stepsReadBy(source: string): ReadonlySet<string> | null {
  return OPAQUE.test(source) ? null : membersRead(source);
}

/** The literal keys every mention of `steps` reads, or null if one mention is not such a read. */
function membersRead(source: string): Set<string> | null {
  const read = new Set<string>();
  for (const mention of source.matchAll(STEPS_MENTION)) {
    const after = mention.index + 'steps'.length;
    const member = MEMBER_READ.exec(source.slice(after, after + 300));
    const id = member?.[1] ?? member?.[2] ?? member?.[3];
    if (id === undefined || id in Object.prototype) return null;
    read.add(id);
  }
  return read;
}

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
