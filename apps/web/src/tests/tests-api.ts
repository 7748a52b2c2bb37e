/**
 * The `tests` procedures (runs saved as test cases in the server's tests folder): their types
 * as the server's router gives them, and what the panel says about a case's `match`.
 */
import { trpc } from '../trpc.ts';

/**
 * What a case must match when it is run again (at least one): the sequence of steps the run
 * took, its output exactly, or its output by a JSON Schema (inferred from the saved output).
 */
export type MatchKind = 'steps' | 'output' | 'output-schema';
export type TestMatch = MatchKind[];

export type SavedTest = Awaited<ReturnType<typeof trpc.tests.save.mutate>>;
export type TestCaseSummary = Awaited<ReturnType<typeof trpc.tests.list.query>>[number];
export type TestResult = Awaited<ReturnType<typeof trpc.tests.run.mutate>>[number];

export const saveTest = (input: { runId: string; name?: string; match?: TestMatch }) => trpc.tests.save.mutate(input);
export const listTests = (flowId: string) => trpc.tests.list.query({ flowId });
export const runTests = (input: { flowId?: string; files?: string[] }) => trpc.tests.run.mutate(input);

const MATCH_WORDS: Record<string, string> = {
  output: 'output exactly',
  'output-schema': 'output by schema',
  steps: 'step sequence',
};

/** What a case matches, in words. */
export function describeMatch(match: readonly string[] | undefined): string {
  return (match ?? []).map((kind) => MATCH_WORDS[kind] ?? kind).join(' + ');
}

/** The match list for the save form's choices (output exactly / by schema / not checked; steps or not). */
export function matchOf(output: 'exact' | 'schema' | 'ignore', steps: boolean): TestMatch {
  return [
    ...(steps ? (['steps'] as const) : []),
    ...(output === 'exact' ? (['output'] as const) : output === 'schema' ? (['output-schema'] as const) : []),
  ];
}
