/**
 * The example gallery: the flows of the examples folder (examples/catalog.ts), each runnable
 * offline with its recorded input and model turns, and copyable into the workspace. Running or
 * copying an example saves it first when the workspace has no flow of its id, with the flows it
 * spawns or calls as tools, so the run and the editor find everything it uses.
 */
import { TRPCError } from '@trpc/server';
import type { RunStore } from '@weft/adapters/store';
import type { Fixtures, Json } from '@weft/engine';
import { z } from 'zod';
import { demoApiProblem, type Example, readExamples, summaryOf, withSubFlows } from '../examples/catalog.ts';
import { procedure, router } from '../trpc.ts';
import { requireValid } from './flows.ts';
import { viaService } from './runs.ts';

const exampleId = z.string().min(1).max(64);

async function requireExample(examplesDir: string, id: string) {
  const examples = await readExamples(examplesDir);
  const example = examples.get(id);
  if (!example) {
    const known = [...examples.keys()].join(', ') || `none in ${examplesDir}`;
    throw new TRPCError({ code: 'NOT_FOUND', message: `id: no example '${id}' (examples: ${known})` });
  }
  return { examples, example };
}

/**
 * Saves the example and the flows it uses that the workspace lacks (sub-flows first, so each
 * validates against what is saved); returns the ids saved. A flow already there is kept as it is.
 */
async function installExample(store: RunStore, examples: ReadonlyMap<string, Example>, id: string) {
  const stored = new Set((await store.flows.list()).map((flow) => flow.id));
  let needed: Example[];
  try {
    needed = withSubFlows(examples, id, (flowId) => stored.has(flowId));
  } catch (error) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: (error as Error).message });
  }
  const saved: string[] = [];
  for (const example of needed) {
    if (stored.has(example.id)) continue;
    // A concurrent install of the same example may win: its copy is as good as ours.
    if (await store.flows.create(await requireValid(store, example.doc))) saved.push(example.id);
  }
  return saved;
}

export const examplesRouter = router({
  /** Every example as a gallery card, in file-name order. */
  list: procedure.input(z.object({}).optional()).query(async ({ ctx }) => {
    const { store, examplesDir } = ctx.services;
    const [examples, flows] = await Promise.all([readExamples(examplesDir), store.flows.list()]);
    const stored = new Set(flows.map((flow) => flow.id));
    return [...examples.values()].map((example) => summaryOf(example, stored.has(example.id)));
  }),

  /** One example's flow document, run input and recorded model turns. */
  get: procedure.input(z.object({ id: exampleId })).query(async ({ ctx, input }) => {
    const { example } = await requireExample(ctx.services.examplesDir, input.id);
    return { doc: example.doc as Json, input: example.input, fixtures: example.fixtures };
  }),

  /**
   * Runs the example with its input and recorded model turns (no provider is called), after
   * saving it and its sub-flows when missing. An example that calls the demo API calls it when it
   * answers here; otherwise its recorded run answers those calls (`fromRecording`, the events
   * mark them reused), and without a recording it is PRECONDITION_FAILED, saying what to start.
   */
  run: procedure.input(z.object({ id: exampleId })).mutation(async ({ ctx, input }) => {
    const { store, runs, env, examplesDir } = ctx.services;
    const { examples, example } = await requireExample(examplesDir, input.id);
    const problem = await demoApiProblem(example, env);
    if (problem && !example.recording) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: problem });
    const saved = await installExample(store, examples, example.id);
    const seed = problem ? example.recording : null;
    // The example's own document runs, whatever the workspace's copy became since: the recorded
    // turns answer exactly its calls.
    const { runId } = await viaService(() =>
      runs.start({
        flow: example.doc,
        input: example.input,
        ...(example.fixtures ? { fixtures: example.fixtures as Fixtures } : {}),
        ...(seed ? { seed } : {}),
      }),
    );
    return { runId, saved, fromRecording: seed !== null };
  }),

  /** Saves the example and its sub-flows into the workspace (those missing), to open in the editor. */
  copy: procedure.input(z.object({ id: exampleId })).mutation(async ({ ctx, input }) => {
    const { examples, example } = await requireExample(ctx.services.examplesDir, input.id);
    const saved = await installExample(ctx.services.store, examples, example.id);
    return { flowId: example.id, saved };
  }),
});
