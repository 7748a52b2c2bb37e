/**
 * Runs as tests: save a completed run as a test case in the server's tests folder
 * (`services.testsDir`: WEFT_TESTS_DIR, default `tests/`), list the cases, and run them offline
 * against the flow table's current versions. `build` returns a case without writing it, for a
 * client that keeps cases in its own folder (`weft runs save-test --server`).
 *
 * A case's output schema is inferred here, never taken from a caller: running a case evaluates
 * its schema on the server, and a caller-written `pattern` could backtrack for minutes. A schema
 * written by hand into a case file is the project's own.
 */
import { join } from 'node:path';
import { TRPCError } from '@trpc/server';
import { UnknownRunError } from '@weft/adapters/inprocess';
import {
  CaseFileCollisionError,
  type CaseResult,
  caseFileName,
  caseFromRun,
  listCaseFiles,
  loadCaseFile,
  MATCH_KINDS,
  RunNotCompletedError,
  runCase,
  type TestCase,
  writeCaseFile,
} from '@weft/adapters/testing';
import { ZodRealError, z } from 'zod';
import type { ApiContext } from '../context.ts';
import { storeFlowSource } from '../flow-source.ts';
import { procedure, router } from '../trpc.ts';

const flowId = z.string().min(1).max(200);
const match = z
  .array(z.enum(MATCH_KINDS))
  .min(1)
  .refine((list) => new Set(list).size === list.length, 'lists a kind twice');
const saveInput = z.object({
  runId: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(200).optional(),
  match: match.optional(),
});
// A case is named by its file in the tests folder: a plain name, never a path out of it.
const caseFile = z
  .string()
  .max(255)
  .regex(/^(?!\.)[^/\\]+\.json$/, 'must be the name of a .json file in the tests folder')
  .refine((name) => !name.includes('\0'), 'must be the name of a .json file in the tests folder');

export interface CaseSummary {
  name: string;
  file: string;
  flowId: string | null;
  flowVersion: number | null;
  match: string[];
  /** Why the file is not a valid case, when it is not. */
  error?: string;
}

export const testsRouter = router({
  /**
   * Saves the run as a case file; `replaced` when a case of that name was there. A file holding
   * another case (two names can give one file) is refused with CONFLICT unless `overwrite`.
   */
  save: procedure.input(saveInput.extend({ overwrite: z.boolean().optional() })).mutation(async ({ ctx, input }) => {
    const testCase = await build(ctx, input);
    const file = caseFileName(testCase.flow.id, input.name, input.runId);
    try {
      const written = await writeCaseFile(join(ctx.services.testsDir, file), testCase, {
        overwrite: input.overwrite === true,
      });
      return { file, case: testCase, replaced: written.replaced };
    } catch (error) {
      if (!(error instanceof CaseFileCollisionError)) throw error;
      // The message names the folder's file only, not the server's path to it.
      const message = error.message.replace(error.path, file);
      throw new TRPCError({ code: 'CONFLICT', message, cause: error });
    }
  }),

  /** The case `save` would write, and the file name it would write it to; nothing is written. */
  build: procedure.input(saveInput).query(async ({ ctx, input }) => {
    const testCase = await build(ctx, input);
    return { file: caseFileName(testCase.flow.id, input.name, input.runId), case: testCase };
  }),

  /** Every case in the tests folder (of one flow), invalid files included with their error. */
  list: procedure
    .input(z.object({ flowId: flowId.optional() }).optional())
    .query(async ({ ctx, input }): Promise<CaseSummary[]> => {
      const summaries: CaseSummary[] = [];
      for (const loaded of await loadAll(ctx)) {
        if ('error' in loaded) {
          if (!input?.flowId) summaries.push({ ...loaded, flowId: null, flowVersion: null, match: [] });
          continue;
        }
        const { file, testCase } = loaded;
        if (input?.flowId && testCase.flow.id !== input.flowId) continue;
        summaries.push({
          name: testCase.name,
          file,
          flowId: testCase.flow.id,
          flowVersion: testCase.flow.version,
          match: testCase.match,
        });
      }
      return summaries;
    }),

  /** Runs the cases (all, one flow's, or the files named) offline; one result per case. */
  run: procedure
    .input(z.object({ flowId: flowId.optional(), files: z.array(caseFile).min(1).max(1000).optional() }).optional())
    .mutation(async ({ ctx, input }): Promise<CaseResult[]> => {
      let loaded = await loadAll(ctx);
      if (input?.files) {
        const byFile = new Map(loaded.map((entry) => [entry.file, entry]));
        input.files.forEach((file, index) => {
          if (!byFile.has(file))
            throw badRequest(`files.${index}: no test case '${file}' in the tests folder`, `files.${index}`);
        });
        loaded = input.files.map((file) => byFile.get(file)!);
      }
      const flows = storeFlowSource(ctx.services.store);
      const results: CaseResult[] = [];
      for (const entry of loaded) {
        if ('error' in entry) {
          if (!input?.flowId)
            results.push({ name: entry.name, file: entry.file, passed: false, durationMs: 0, error: entry.error });
          continue;
        }
        if (input?.flowId && entry.testCase.flow.id !== input.flowId) continue;
        results.push(await runCase(entry.testCase, { flows, flowsLabel: "the server's flows", file: entry.file }));
      }
      return results;
    }),
});

async function build(ctx: ApiContext, input: z.infer<typeof saveInput>): Promise<TestCase> {
  try {
    return await caseFromRun(ctx.services.store, input.runId, {
      ...(input.name ? { name: input.name } : {}),
      ...(input.match ? { match: input.match } : {}),
    });
  } catch (error) {
    if (error instanceof UnknownRunError)
      throw new TRPCError({ code: 'NOT_FOUND', message: `runId: unknown run '${input.runId}'`, cause: error });
    if (error instanceof RunNotCompletedError)
      throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `runId: ${error.message}`, cause: error });
    throw error;
  }
}

type Loaded = { file: string; testCase: TestCase } | { file: string; name: string; error: string };

/** The folder's cases by file name (a folder not made yet holds none). */
async function loadAll(ctx: ApiContext): Promise<Loaded[]> {
  const dir = ctx.services.testsDir;
  let paths: string[];
  try {
    paths = await listCaseFiles(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return Promise.all(
    paths.map(async (path): Promise<Loaded> => {
      const file = path.slice(dir.length + 1);
      try {
        return { file, testCase: await loadCaseFile(path, file) };
      } catch (error) {
        return { file, name: file.replace(/\.json$/, ''), error: (error as Error).message };
      }
    }),
  );
}

/** A BAD_REQUEST whose `data.issues` name the field, like a zod input failure. */
function badRequest(message: string, path: string): TRPCError {
  const cause = new ZodRealError([{ code: 'custom', path: path.split('.'), message, input: undefined }]);
  return new TRPCError({ code: 'BAD_REQUEST', message, cause });
}
