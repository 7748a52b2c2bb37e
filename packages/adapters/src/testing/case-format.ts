/**
 * A test case: one saved run, as a JSON file a person reads in a diff (issue 14, "runs as
 * tests"). Running it (run-case.ts) starts the flow again with the saved input and answers every
 * call from `recorded` — nothing reaches a model, the network or the sandbox — then compares
 * what came out with `expect`, as `match` says.
 *
 * ```jsonc
 * {
 *   "weftTest": 1,                                  // format version
 *   "name": "support-triage-3f9a1c2e",
 *   "flow": { "id": "support-triage", "version": 3 }, // the version it was saved from (informative:
 *                                                   // a case runs the flow source's current one)
 *   "match": ["steps", "output"],                   // any of "steps", "output", "output-schema"
 *   "input": { … },                                 // the run's input
 *   "expect": {
 *     "steps": ["classify", "classify/llm#1", …],   // every step.started, in the run's order
 *     "output": { … },                              // the run's output
 *     "outputSchema": { … }                         // only with "output-schema"
 *   },
 *   "approvals": {                                  // decisions, by approval step path
 *     "signoff": { "approved": true, "by": "ana", "comment": null, "at": "2025-…Z" },
 *     "window": { "timedOut": true, "at": "2025-…Z" }
 *   },
 *   "fixtures": { … },                              // the run's fixtures, when it had any
 *   "recorded": [                                   // what each call was answered with
 *     { "stepId": "classify/llm#1", "kind": "model-turn", "status": "completed",
 *       "inputHash": "model-turn:…", "output": { … }, "error": null }, …
 *   ],
 *   "fromRun": "run_…"                              // where it was saved from
 * }
 * ```
 *
 * Why this shape:
 * - `recorded` holds journal entries as the store keeps them (model turns, tool, code and http
 *   calls, child runs as `spawn`): a run's seed answers a call only when its input hash matches,
 *   so a step whose input changed runs "live" — and, offline, is refused, which is how a changed
 *   step is caught. Sleeps are not recorded: they are timers, not results.
 * - `fixtures` are kept because a model turn's input (and so its hash) carries the fixture turn
 *   the run was given; without them no recorded turn of a fixture run would match.
 * - Approvals keep `at`: an approval step's output includes it, so an output compared exactly
 *   must get the very same decision back. A timeout is `{ timedOut: true }`, not a string, for
 *   the same reason.
 * - Stable on disk: the case's own fields in this fixed order (what is checked first, bulky
 *   recordings last), 2-space indent, a final newline. Data (input, outputs) keeps the order
 *   the run produced: a template that interpolates an object, or code reading its keys, sees
 *   that order, so sorting it could change what the flow does on replay.
 */
import type { Fixtures, Json } from '@weft/engine';
import { z } from 'zod';
import type { JournalEntry } from '../store/types.ts';

export const TEST_FORMAT_VERSION = 1;

/** What a case may require to match. */
export const MATCH_KINDS = ['steps', 'output', 'output-schema'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

/** When a case does not say: the same steps in the same order, and exactly the same output. */
export const DEFAULT_MATCH: readonly MatchKind[] = ['steps', 'output'];

/**
 * Data fields (input, outputs) are JSON by construction — the file was `JSON.parse`d — and are
 * kept exactly as read: `z.json()` would copy them and drop own `__proto__` keys, which a
 * model's or a server's answer may hold, and then the replay would not see what the run saw.
 */
const json = z.custom<Json>((value) => value !== undefined, 'is required');

const errorInfo = z.looseObject({ name: z.string().optional(), message: z.string() });

const recordedEntry = z.strictObject({
  stepId: z.string().min(1),
  kind: z.string().min(1),
  status: z.enum(['completed', 'failed']),
  inputHash: z.string().min(1),
  output: json.nullable(),
  error: errorInfo.nullable(),
});

const isoTime = z.iso.datetime({ offset: true });

export const approvalDecisionSchema = z.union([
  z.strictObject({
    approved: z.boolean(),
    by: z.string().nullable(),
    comment: z.string().nullable(),
    at: isoTime,
  }),
  z.strictObject({ timedOut: z.literal(true), at: isoTime }),
]);
export type CaseApproval = z.infer<typeof approvalDecisionSchema>;

const matchList = z
  .array(z.enum(MATCH_KINDS))
  .min(1, 'name at least one of steps, output, output-schema')
  .refine((list) => new Set(list).size === list.length, 'lists a kind twice');

export const testCaseSchema = z
  .strictObject({
    weftTest: z.literal(TEST_FORMAT_VERSION, {
      error: `must be ${TEST_FORMAT_VERSION} (the test case format version)`,
    }),
    name: z.string().min(1).max(200),
    flow: z.strictObject({ id: z.string().min(1), version: z.int().positive() }),
    match: matchList,
    input: json,
    expect: z.strictObject({
      steps: z.array(z.string().min(1)).optional(),
      output: json.optional(),
      outputSchema: z.union([z.record(z.string(), json), z.boolean()]).optional(),
    }),
    approvals: z.record(z.string().min(1), approvalDecisionSchema).default({}),
    fixtures: z.record(z.string(), z.array(z.record(z.string(), json))).optional(),
    recorded: z.array(recordedEntry),
    fromRun: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    // What `match` asks for must be there to compare with.
    const needs: Record<MatchKind, keyof typeof value.expect> = {
      steps: 'steps',
      output: 'output',
      'output-schema': 'outputSchema',
    };
    for (const kind of value.match)
      if (value.expect[needs[kind]] === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['expect', needs[kind]],
          message: `is required: match lists "${kind}"`,
        });
  });

export interface TestCase {
  weftTest: typeof TEST_FORMAT_VERSION;
  name: string;
  flow: { id: string; version: number };
  match: MatchKind[];
  input: Json;
  expect: { steps?: string[]; output?: Json; outputSchema?: Record<string, Json> | boolean };
  approvals: Record<string, CaseApproval>;
  fixtures?: Fixtures;
  recorded: JournalEntry[];
  fromRun?: string;
}

/** A file that is not a valid test case: the message names the file and each bad field. */
export class TestCaseInvalidError extends Error {
  readonly file: string;
  readonly issues: readonly { path: string; message: string }[];
  constructor(file: string, issues: readonly { path: string; message: string }[], options?: { cause?: unknown }) {
    const listed = issues
      .slice(0, 5)
      .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
      .join('; ');
    super(
      `${file} is not a valid test case: ${listed}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}`,
      options,
    );
    this.name = 'TestCaseInvalidError';
    this.file = file;
    this.issues = issues;
  }
}

/** Validates a parsed document as a test case; `file` names it in the error. */
export function parseTestCase(doc: unknown, file: string): TestCase {
  const result = testCaseSchema.safeParse(doc);
  if (!result.success)
    throw new TestCaseInvalidError(
      file,
      result.error.issues.map((issue) => ({ path: fieldPath(issue.path), message: issue.message })),
    );
  return result.data as TestCase;
}

/** Parses a case file's text: JSON errors and field errors both name the file. */
export function readTestCase(text: string, file: string): TestCase {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new TestCaseInvalidError(file, [{ path: '', message: `not JSON (${(error as Error).message})` }], {
      cause: error,
    });
  }
  return parseTestCase(doc, file);
}

/** The case as its file holds it: fixed field order, 2-space indent, a final newline. */
export function formatTestCase(testCase: TestCase): string {
  const { expect } = testCase;
  const ordered = {
    weftTest: testCase.weftTest,
    name: testCase.name,
    flow: { id: testCase.flow.id, version: testCase.flow.version },
    match: testCase.match,
    input: testCase.input,
    expect: {
      ...(expect.steps !== undefined ? { steps: expect.steps } : {}),
      ...(expect.output !== undefined ? { output: expect.output } : {}),
      ...(expect.outputSchema !== undefined ? { outputSchema: expect.outputSchema } : {}),
    },
    approvals: Object.fromEntries(
      Object.entries(testCase.approvals).map(([stepId, decision]) => [
        stepId,
        'timedOut' in decision
          ? { timedOut: true, at: decision.at }
          : { approved: decision.approved, by: decision.by, comment: decision.comment, at: decision.at },
      ]),
    ),
    ...(testCase.fixtures !== undefined ? { fixtures: testCase.fixtures } : {}),
    recorded: testCase.recorded.map((entry) => ({
      stepId: entry.stepId,
      kind: entry.kind,
      status: entry.status,
      inputHash: entry.inputHash,
      output: entry.output,
      error: entry.error,
    })),
    ...(testCase.fromRun !== undefined ? { fromRun: testCase.fromRun } : {}),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** `expect.steps[3]`, `recorded[0].status`: how a person would point at the field. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      out += /^[A-Za-z_$][\w$-]*$/.test(key) ? `${out ? '.' : ''}${key}` : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
