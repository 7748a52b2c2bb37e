/**
 * `map`: runs its steps once per item, `concurrency` at a time. Inside, expressions read the
 * item by the map's `as` name (default `item`) and its position as `index`; a nested map's
 * steps still see the outer items by their names. Output: each iteration's last output.
 */
import { z } from 'zod';
import { NonRetryableError } from '../errors.ts';
import { bindableNameProblem, DEFAULT_ITEM_NAME } from '../expr/names.ts';
import { childScope, type StepHandler } from '../interpreter/context.ts';
import { settleAll } from '../interpreter/settle.ts';
import { baseStepShape, exprSchema } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';
import { type StepListSchema, stepListSchema } from './step-list.ts';

export const MAX_MAP_ITEMS = 10_000;
export const DEFAULT_MAP_CONCURRENCY = 10;

export const mapStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('map'),
  items: exprSchema,
  as: z
    .string()
    .superRefine((name, ctx) => {
      const problem = bindableNameProblem(name);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `map 'as' ${problem}` });
    })
    .optional(),
  concurrency: z.int().min(1).max(1000).optional(),
  get steps(): StepListSchema {
    return stepListSchema();
  },
});
export type MapStep = z.infer<typeof mapStepSchema>;

const mapHandler: StepHandler<MapStep, { items: Json[] }> = {
  describeInput(step, ctx) {
    const items = ctx.resolve(step.items);
    if (!Array.isArray(items)) throw new NonRetryableError(`map items must be an array, got ${typeOf(items)}`);
    if (items.length > MAX_MAP_ITEMS)
      throw new NonRetryableError(`map over ${items.length} items exceeds ${MAX_MAP_ITEMS}`);
    return { items };
  },
  async execute(step, ctx, { items }) {
    const results: Json[] = new Array(items.length).fill(null);
    const name = step.as ?? DEFAULT_ITEM_NAME;
    let next = 0;
    let stop = false;
    // A fixed pool of workers, each taking the next index: ids depend only on the index, so a
    // replay asks for the same step ids whatever order the iterations finish in.
    const worker = async (): Promise<void> => {
      while (!stop && next < items.length) {
        const index = next++;
        const item = items[index]!;
        const scope = childScope(ctx.scope, { item, index, vars: bindVariable(ctx.scope.vars, name, item) });
        try {
          results[index] = await ctx.runSteps(step.steps, `${ctx.path}[${index}]/`, scope);
        } catch (error) {
          stop = true;
          throw error;
        }
      }
    };
    const width = Math.min(step.concurrency ?? DEFAULT_MAP_CONCURRENCY, items.length);
    await settleAll(Array.from({ length: width }, worker));
    return results;
  },
};

/** Everything `map` means, for the registry, the validator, code-first, codegen and the editor. */
export const mapStep: StepManifest<MapStep> = {
  type: 'map',
  schema: mapStepSchema,
  handler: mapHandler,
  fields: {
    items: { kind: 'expression' },
    as: { kind: 'literal' },
    concurrency: { kind: 'literal' },
    steps: { kind: 'steps' },
  },
  childRuns: 'repeated',
  body: {
    names: [
      { name: DEFAULT_ITEM_NAME, detail: 'the current item' },
      { name: 'index', detail: 'the current index' },
    ],
    renamedBy: 'as',
  },
  editor: {
    label: 'Map',
    icon: 'ellipsis',
    description: 'Run the body once per item of a list.',
    shape: 'container',
    defaults: { items: '=[]' },
  },
};

/** The enclosing maps' names plus this one (shadowing an outer map's same name). */
function bindVariable(
  outer: Readonly<Record<string, Json>> | undefined,
  name: string,
  value: Json,
): Record<string, Json> {
  const vars: Record<string, Json> = Object.assign(Object.create(null), outer);
  vars[name] = value;
  return vars;
}

function typeOf(value: Json): string {
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : typeof value;
}
