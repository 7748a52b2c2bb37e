/**
 * The runs screen's rows: the store's page (filtered, searched and paged by the database) with
 * each run's tokens priced now — the price tables and the user's overrides in force, at the
 * run's date. Shared by `runs.search` and `weft runs list` on this machine, so both show the
 * same numbers.
 */
import { costOfUsage, type PricedTurn, type PriceOptions, pricer, type TurnUsage } from '@weft/adapters/service';
import type { RunListItem, RunSearchQuery, RunStore } from '@weft/adapters/store';
import { RUN_STATUSES, type RunStatus } from '@weft/engine';
import { z } from 'zod';

const runStatus = z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]);

/** `runs.search`'s input; every filter optional. */
export const searchInput = z.object({
  flowId: z.string().min(1).max(200).optional(),
  flowVersion: z.number().int().positive().optional(),
  status: z.array(runStatus).max(RUN_STATUSES.length).optional(),
  backend: z.array(z.string().min(1).max(100)).max(20).optional(),
  /** Created at or after (ms epoch). */
  since: z.number().int().nonnegative().optional(),
  /** Created before (ms epoch). */
  until: z.number().int().nonnegative().optional(),
  /** Words that must all occur in the input, output or error message (each as a word prefix). */
  text: z.string().max(200).optional(),
  /** Only runs that are no other run's child (default true). */
  rootOnly: z.boolean().optional(),
  cursor: z.string().max(1000).nullish(),
  limit: z.number().int().min(1).max(200).optional(),
});

export type SearchInput = z.infer<typeof searchInput>;

/** One run as a list shows it: the store's list item, with its end and usage turned into duration and cost. */
export type RunSummary = Omit<RunListItem, 'endedAt' | 'usage'> & {
  /** Created → ended; null while the run has not ended. */
  durationMs: number | null;
  /** Null when the run's tokens are unknown, or it had paid turns and none could be priced. */
  costUsd: number | null;
  /** Models with tokens but no known price: their cost is not in `costUsd`. */
  unpricedModels: string[];
};

export const DEFAULT_PAGE = 50;

export async function searchRunSummaries(
  store: RunStore,
  input: SearchInput,
  options: PriceOptions = {},
): Promise<{ runs: RunSummary[]; nextCursor: string | null }> {
  const query: RunSearchQuery = {
    limit: input.limit ?? DEFAULT_PAGE,
    rootOnly: input.rootOnly ?? true,
    ...(input.flowId !== undefined ? { flowId: input.flowId } : {}),
    ...(input.flowVersion !== undefined ? { flowVersion: input.flowVersion } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.backend !== undefined ? { backend: input.backend } : {}),
    ...(input.since !== undefined ? { since: input.since } : {}),
    ...(input.until !== undefined ? { until: input.until } : {}),
    ...(input.text !== undefined ? { text: input.text } : {}),
    ...(input.cursor ? { cursor: input.cursor } : {}),
  };
  const page = await store.searchRuns(query);
  const price = await pricer(options);
  return { runs: page.runs.map((item) => summaryOf(item, price)), nextCursor: page.nextCursor };
}

function summaryOf(item: RunListItem, price: (turn: TurnUsage) => PricedTurn): RunSummary {
  const cost = item.tokens === null ? null : costOfUsage(item.usage, price, item.createdAt);
  return {
    id: item.id,
    flowId: item.flowId,
    flowVersion: item.flowVersion,
    status: item.status,
    backend: item.backend,
    inputPreview: item.inputPreview,
    outputPreview: item.outputPreview,
    error: item.error,
    parentRunId: item.parentRunId,
    parentStepId: item.parentStepId,
    replayOf: item.replayOf,
    handoff: item.handoff,
    hasFixtures: item.hasFixtures,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    durationMs: item.endedAt === null ? null : Math.max(0, item.endedAt - item.createdAt),
    tokens: item.tokens,
    costUsd: cost?.usd ?? null,
    unpricedModels: cost?.unpriced ?? [],
  };
}
