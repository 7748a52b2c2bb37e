/**
 * Flows: the documents the editor edits. Every save is a new immutable version (the latest is
 * what runs by default); every write is checked with the engine's `validateFlow` against all
 * stored flows, so spawn targets and spawn cycles are checked too. An invalid document is a
 * BAD_REQUEST whose `data.flowErrors` lists the engine's problems, each pinned to a step id and
 * a JSON path (see FlowValidationError and trpc.ts's errorFormatter).
 *
 * Code: `exportCode` writes a flow as TypeScript on the server (@weft/codegen: the TypeScript
 * compiler and prettier stay out of the browser) — a stored version, or with `exportDocCode`
 * the editor's unsaved document — and `importCode` reads a `.ts` file in the weft shape back as a new flow.
 */

import { TRPCError } from '@trpc/server';
import type { FlowVersionRecord, RunStore } from '@weft/adapters/store';
import {
  type ExportFile,
  type ExportTargetName,
  exportFlowFiles,
  type ImportIssue,
  importFlow,
  isExportTarget,
  TARGETS,
} from '@weft/codegen';
import type { Flow, Json, ValidationIssue } from '@weft/engine';
import { compareFlows, validateFlow } from '@weft/engine';
import { z } from 'zod';
import { storeFlowSource } from '../flow-source.ts';
import { importFlowFiles } from '../import-flows.ts';
import { procedure, router } from '../trpc.ts';

/** The engine's flow id rule (ir/common.ts): slugs. */
const flowId = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a slug: lowercase letters, digits, - and _');
const version = z.int().min(1);
/** A flow document: an object here; everything inside it is the engine's to judge. */
// Passed through as the client sent it: a zod record would rebuild it and silently drop a
// `__proto__` key, which validation must see (and refuse, naming it).
const flowDoc = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'must be a JSON object (a flow document)',
);
/** Imported files are read whole: a generous bound well above any real flow. */
const MAX_IMPORT_CHARS = 5_000_000;

type FlowDoc = Json & { id: string; name: string };

const exportTarget = z
  .string()
  .refine(isExportTarget, { message: `must be one of: ${Object.keys(TARGETS).join(', ')}` });

/** Every file of `doc`'s export for `target`, once the document is valid. */
async function exportCodeFiles(store: RunStore, doc: unknown, target: string): Promise<ExportFile[]> {
  const flow = (await requireValid(store, doc)) as unknown as Flow;
  return exportFlowFiles(flow, target as ExportTargetName);
}

/** `<id>-2`, `<id>-3`, …: the first id no flow has, a slug of at most 64 characters. */
async function freeFlowId(store: RunStore, id: string): Promise<string> {
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${id.slice(0, 64 - suffix.length)}${suffix}`;
    if ((await store.flows.get(candidate)) === undefined) return candidate;
  }
}

/** Every import problem as `line:column message`, one a line, after what failed. */
function describeImportIssues(fileName: string, issues: readonly ImportIssue[]): string {
  const count = `${issues.length} problem${issues.length === 1 ? '' : 's'}`;
  return [
    `${fileName} cannot be imported (${count}):`,
    ...issues.map((i) => `${i.line}:${i.column} ${i.message}`),
  ].join('\n');
}

/**
 * The `cause` of a BAD_REQUEST for an invalid flow. trpc.ts's errorFormatter copies `flowErrors`
 * into `error.data.flowErrors` so that HTTP clients get them too (found by that property, not
 * by class, so trpc.ts need not import the routers).
 */
export class FlowValidationError extends Error {
  readonly flowErrors: ValidationIssue[];

  constructor(flowErrors: ValidationIssue[]) {
    super(describeIssues(flowErrors));
    this.name = 'FlowValidationError';
    this.flowErrors = flowErrors;
  }
}

function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((issue) => `${issue.path || '(flow)'}${issue.stepId ? ` [step ${issue.stepId}]` : ''}: ${issue.message}`)
    .join('; ');
}

/** validateFlow against every stored flow, `doc` standing in for the stored flow of its id. */
export async function check(
  store: RunStore,
  doc: unknown,
): Promise<{ ok: true } | { ok: false; errors: ValidationIssue[] }> {
  const flows = new Map(await storeFlowSource(store).documents());
  const id = (doc as { id?: unknown } | null)?.id;
  if (typeof id === 'string') flows.set(id, doc);
  const result = validateFlow(doc, { flows });
  return result.ok ? { ok: true } : { ok: false, errors: result.errors };
}

/** Validates `doc` and throws the BAD_REQUEST of an invalid flow. */
export async function requireValid(store: RunStore, doc: unknown): Promise<FlowDoc> {
  const result = await check(store, doc);
  if (!result.ok) {
    const cause = new FlowValidationError(result.errors);
    throw new TRPCError({ code: 'BAD_REQUEST', message: `invalid flow: ${cause.message}`, cause });
  }
  return doc as FlowDoc;
}

async function requireFlow(store: RunStore, id: string, version?: number): Promise<FlowVersionRecord> {
  const record = await store.flows.get(id, version);
  if (record) return record;
  const exists = version !== undefined && (await store.flows.get(id)) !== undefined;
  throw new TRPCError({
    code: 'NOT_FOUND',
    message: exists ? `flow '${id}' has no version ${version}` : `no flow '${id}'`,
  });
}

/** JSON.parse with the failure placed as line and column, for a file the user picked. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    let where = '';
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    if (lineColumn) where = ` at line ${lineColumn[1]}, column ${lineColumn[2]}`;
    else if (position) {
      const before = text.slice(0, Number(position[1])).split('\n');
      where = ` at line ${before.length}, column ${before.at(-1)!.length + 1}`;
    } else if (/end of JSON input/i.test(message)) {
      const lines = text.split('\n');
      where = ` at line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
    }
    const reason = message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '');
    throw new TRPCError({ code: 'BAD_REQUEST', message: `the file is not valid JSON${where}: ${reason}` });
  }
}

export const flowsRouter = router({
  /** A new flow (version 1); CONFLICT when the id is taken. */
  create: procedure.input(z.object({ doc: flowDoc })).mutation(async ({ ctx, input }) => {
    const { store } = ctx.services;
    const doc = await requireValid(store, input.doc);
    // Atomic: of concurrent creates of one id exactly one wins; the others are CONFLICT.
    const created = await store.flows.create(doc);
    if (!created) {
      throw new TRPCError({
        code: 'CONFLICT',
        message: `a flow '${doc.id}' exists already; save a new version instead`,
      });
    }
    return created;
  }),

  /** Every flow with its latest version, most recently saved first. */
  list: procedure.input(z.object({}).optional()).query(({ ctx }) => ctx.services.store.flows.list()),

  /** A version of a flow (the latest when none is given). */
  get: procedure
    .input(z.object({ id: flowId, version: version.optional() }))
    .query(({ ctx, input }) => requireFlow(ctx.services.store, input.id, input.version)),

  /** A flow's versions, oldest first. */
  versions: procedure.input(z.object({ id: flowId })).query(async ({ ctx, input }) => {
    await requireFlow(ctx.services.store, input.id);
    return ctx.services.store.flows.versions(input.id);
  }),

  /** Two versions of a flow compared: steps added, removed and changed (their config diff), tools, input and output. */
  compare: procedure.input(z.object({ id: flowId, a: version, b: version })).query(async ({ ctx, input }) => {
    const [a, b] = await Promise.all([
      requireFlow(ctx.services.store, input.id, input.a),
      requireFlow(ctx.services.store, input.id, input.b),
    ]);
    return compareFlows(a.doc as Flow, b.doc as Flow);
  }),

  /** A new immutable version of an existing flow. */
  save: procedure.input(z.object({ id: flowId, doc: flowDoc })).mutation(async ({ ctx, input }) => {
    const { store } = ctx.services;
    if (input.doc.id !== input.id) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: `doc.id (${JSON.stringify(input.doc.id)}) must be the flow's id '${input.id}'`,
      });
    }
    await requireFlow(store, input.id);
    return store.flows.save(await requireValid(store, input.doc));
  }),

  /** A new flow (version 1) from the latest version of another. */
  duplicate: procedure
    .input(z.object({ id: flowId, newId: flowId, name: z.string().min(1).max(200).optional() }))
    .mutation(async ({ ctx, input }) => {
      const { store } = ctx.services;
      const source = await requireFlow(store, input.id);
      const conflict = () => new TRPCError({ code: 'CONFLICT', message: `a flow '${input.newId}' exists already` });
      // Checked first so a taken id is CONFLICT rather than whatever validation would say...
      if (await store.flows.get(input.newId)) throw conflict();
      const { version: _version, ...rest } = source.doc as Record<string, Json>;
      const doc = { ...rest, id: input.newId, name: input.name ?? `${source.name} (copy)` };
      // ...and decided atomically, so of concurrent duplicates to one id exactly one wins.
      const created = await store.flows.create(await requireValid(store, doc));
      if (!created) throw conflict();
      return created;
    }),

  /** Removes a flow and all its versions (runs keep their pinned snapshot). */
  delete: procedure.input(z.object({ id: flowId })).mutation(async ({ ctx, input }) => {
    if (!(await ctx.services.store.flows.delete(input.id))) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `no flow '${input.id}'` });
    }
    return { id: input.id, deleted: true as const };
  }),

  /** The engine's verdict on a document, never an error for bad IR. */
  validate: procedure
    .input(z.object({ doc: z.unknown() }))
    .query(({ ctx, input }) => check(ctx.services.store, input.doc)),

  /** An IR JSON file: a new flow, or a new version when its id exists. */
  import: procedure.input(z.object({ json: z.string().max(MAX_IMPORT_CHARS) })).mutation(async ({ ctx, input }) => {
    const { store } = ctx.services;
    const parsed = parseJson(input.json);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'the file must hold a flow document (a JSON object)' });
    }
    const doc = await requireValid(store, parsed);
    const created = (await store.flows.get(doc.id)) === undefined;
    return { created, flow: await store.flows.save(doc) };
  }),

  /**
   * Several IR JSON files at once (each one flow, or an array of flows): a flow with the flows it
   * spawns or calls as tools. Flows they use but lack come back as `missing` and nothing is saved;
   * with `fromExamples`, missing flows the examples folder has are imported from there.
   */
  importFiles: procedure
    .input(
      z.object({
        files: z
          .array(z.object({ name: z.string().min(1).max(200), json: z.string().max(MAX_IMPORT_CHARS) }))
          .min(1)
          .max(50),
        fromExamples: z.boolean().default(false),
      }),
    )
    .mutation(({ ctx, input }) =>
      importFlowFiles(ctx.services.store, input.files, {
        examplesDir: ctx.services.examplesDir,
        fromExamples: input.fromExamples,
      }),
    ),

  /**
   * A stored version (the latest when none is given) as TypeScript for `target` (weft, inngest,
   * temporal): every file, main module first. Literal credentials become `process.env` reads:
   * no secret is written.
   */
  exportCode: procedure
    .input(z.object({ id: flowId, version: version.optional(), target: exportTarget }))
    .query(async ({ ctx, input }) => {
      const record = await requireFlow(ctx.services.store, input.id, input.version);
      return { files: await exportCodeFiles(ctx.services.store, record.doc, input.target) };
    }),

  /**
   * `exportCode` of a document as the editor has it, saved or not (nothing is stored). A
   * mutation only so that the document travels in the request body: a query's input is in the URL.
   */
  exportDocCode: procedure.input(z.object({ doc: flowDoc, target: exportTarget })).mutation(async ({ ctx, input }) => ({
    files: await exportCodeFiles(ctx.services.store, input.doc, input.target),
  })),

  /**
   * A `.ts` file in the weft export shape as a NEW flow (version 1). When its id is taken the
   * flow gets the first free `<id>-2`, `<id>-3`, … and `renamedFrom` says so. A file that does
   * not import is a BAD_REQUEST listing every problem as `line:column message`; nothing is created.
   */
  importCode: procedure
    .input(
      z.object({
        source: z.string().max(MAX_IMPORT_CHARS),
        fileName: z
          .string()
          .regex(/^[^/\\]{1,200}\.m?ts$/, 'must be a file name ending in .ts')
          .default('flow.ts'),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { store } = ctx.services;
      const flows = await storeFlowSource(store).documents();
      const result = importFlow(input.source, input.fileName, { flows });
      if (!result.ok) {
        throw new TRPCError({ code: 'BAD_REQUEST', message: describeImportIssues(input.fileName, result.errors) });
      }
      const { version: _version, ...imported } = result.flow as unknown as Record<string, Json>;
      const wanted = result.flow.id;
      // A concurrent create can take the free id first: then the next free one.
      for (let attempt = 0; attempt < 5; attempt++) {
        const id = (await store.flows.get(wanted)) === undefined ? wanted : await freeFlowId(store, wanted);
        const doc = await requireValid(store, { ...imported, id });
        const created = await store.flows.create(doc);
        if (created) return { flow: created, renamedFrom: id === wanted ? null : wanted };
      }
      throw new TRPCError({ code: 'CONFLICT', message: `no free id for '${wanted}': try again` });
    }),

  /** The IR JSON file of a version (the latest when none is given). */
  export: procedure.input(z.object({ id: flowId, version: version.optional() })).query(async ({ ctx, input }) => {
    const record = await requireFlow(ctx.services.store, input.id, input.version);
    return { filename: `${record.id}.json`, json: `${JSON.stringify(record.doc, null, 2)}\n` };
  }),
});
