/**
 * Everything of the RunStore except the run log (commit, loadJournal, readEvents), written once
 * with Kysely for both dialects. Each method is a single statement, so none needs a
 * transaction: a conditional UPDATE is atomic on its own, which is what makes claims and
 * approval decisions race-free across processes (PG re-checks the WHERE clause after waiting on
 * a row lock; SQLite serializes writers). It also means the SQLite store never holds a Kysely
 * transaction open across an await, so its synchronous commit cannot interleave with one.
 */
import { type ErrorInfo, isFinalStatus, type Json, type RunEvent, type RunStatus } from '@weft/engine';
import { type Kysely, sql, type Updateable } from 'kysely';
import type { CommitFeed, FeedHost } from './commit-feed.ts';
import { searchRuns, usageOf } from './run-search.ts';
import {
  encodeNullable,
  newRunRow,
  RUN_COLUMNS,
  type RunsTable,
  type StoreDatabase,
  toApprovalRecord,
  toRunRecord,
} from './schema.ts';
import type {
  ApprovalDecision,
  ApprovalRecord,
  ApprovalStatus,
  ChatStore,
  CommitBatch,
  EventFeedOptions,
  FlowStore,
  JournalEntry,
  ModelUsage,
  NewRun,
  RunFilter,
  RunRecord,
  RunSearchPage,
  RunSearchQuery,
  RunStore,
} from './types.ts';

/** What the commit feed recovers from by itself (a lost connection) is a process warning, not an error. */
export function feedWarning(message: string, error?: unknown): void {
  const detail = error instanceof Error ? error.message : error === undefined ? undefined : String(error);
  process.emitWarning(message, { code: 'WEFT_COMMIT_FEED', ...(detail ? { detail } : {}) });
}

export abstract class KyselyRunStore implements RunStore {
  abstract readonly dialect: 'sqlite' | 'postgres';
  protected readonly db: Kysely<StoreDatabase>;

  /** Each listener with the runs it watches (undefined: every run). */
  readonly #eventListeners = new Map<(events: RunEvent[]) => void, ((runId: string) => boolean) | undefined>();
  /** How commits of other processes on this database reach the listeners (set by the dialect). */
  protected feed: CommitFeed | undefined;

  constructor(db: Kysely<StoreDatabase>) {
    this.db = db;
  }

  onEvents(listener: (events: RunEvent[]) => void, options: EventFeedOptions = {}): () => void {
    this.#eventListeners.set(listener, options.watching);
    this.feed?.listen();
    return () => this.#eventListeners.delete(listener);
  }

  /** What the commit feed needs from this store. */
  protected feedHost(warn: (message: string, error?: unknown) => void): FeedHost {
    return {
      readEvents: (runId, afterSeq) => this.readEvents(runId, afterSeq),
      watching: (runId) => {
        for (const watching of this.#eventListeners.values()) if (!watching || watching(runId)) return true;
        return false;
      },
      deliver: (events) => this.#deliver(events),
      warn,
    };
  }

  /**
   * Tells this process's listeners what a commit stored, once it is committed, and the other
   * processes on this database through the feed. Every event write goes through `commit` — the
   * in-process runner's group committer, the Temporal activities and Inngest steps reporting
   * their runs — so this is the one feed of everything written.
   */
  protected announce(events: RunEvent[]): RunEvent[] {
    if (events.length === 0) return events;
    this.#deliver(events);
    this.feed?.published(events);
    return events;
  }

  /** A listener that throws only loses its own delivery. */
  #deliver(events: RunEvent[]): void {
    for (const listener of this.#eventListeners.keys()) {
      try {
        listener(events);
      } catch {
        // The listener's own failure; the commit stands and the others still hear of it.
      }
    }
  }

  // The run log is laid out per dialect (see schema.ts), so each store reads and writes it itself.
  abstract commit(batches: CommitBatch[]): Promise<RunEvent[]>;
  abstract loadJournal(runId: string): Promise<JournalEntry[]>;
  abstract readEvents(runId: string, afterSeq?: number, limit?: number, maxBytes?: number): Promise<RunEvent[]>;
  // Writes that need a transaction: per dialect too (see flow-store.ts for why).
  abstract readonly flows: FlowStore;
  abstract readonly chats: ChatStore;
  abstract deleteRun(id: string): Promise<boolean>;

  async close(): Promise<void> {
    await this.feed?.stop();
    await this.db.destroy();
  }

  async createRun(run: NewRun): Promise<void> {
    await this.db.insertInto('runs').values(newRunRow(run, Date.now())).execute();
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = await this.db.selectFrom('runs').select(RUN_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toRunRecord(row);
  }

  /** Newest first. */
  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const { flowId, status, backend, parentRunId, replayOf, handedOff, since, limit } = filter;
    // An empty status list matches nothing (and `IN ()` is not valid SQL).
    if (status !== undefined && status.length === 0) return [];
    let query = this.db.selectFrom('runs').select(RUN_COLUMNS);
    if (flowId !== undefined) query = query.where('flow_id', '=', flowId);
    if (status !== undefined) query = query.where('status', 'in', status);
    if (backend !== undefined) query = query.where('backend', '=', backend);
    if (parentRunId !== undefined) query = query.where('parent_run_id', '=', parentRunId);
    if (replayOf !== undefined) query = query.where('replay_of_run_id', '=', replayOf);
    if (handedOff) query = query.where('handoff', 'is not', null).where('backend', '!=', 'inprocess');
    if (since !== undefined) query = query.where('created_at', '>=', since);
    query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
    if (limit !== undefined) query = query.limit(limit);
    return (await query.execute()).map(toRunRecord);
  }

  searchRuns(query: RunSearchQuery): Promise<RunSearchPage> {
    return searchRuns(this.db, this.dialect, query);
  }

  async runUsage(runId: string): Promise<ModelUsage[]> {
    return (await usageOf(this.db, [runId])).get(runId) ?? [];
  }

  async updateRun(
    id: string,
    patch: { status?: RunStatus; output?: Json | null; error?: ErrorInfo | null; backend?: string },
  ): Promise<void> {
    const now = Date.now();
    const set: Updateable<RunsTable> = { updated_at: now };
    if (patch.status !== undefined) set.status = patch.status;
    if (patch.backend !== undefined) set.backend = patch.backend;
    if (patch.output !== undefined) set.output = encodeNullable(patch.output);
    if (patch.error !== undefined) set.error = encodeNullable(patch.error);
    let update = this.db.updateTable('runs').set(set);
    // The first final status is when the run ended: a later write (a late error detail) keeps it.
    if (patch.status !== undefined && isFinalStatus(patch.status)) {
      update = update.set({ ended_at: sql<number>`coalesce(ended_at, ${now})` });
    }
    await update.where('id', '=', id).execute();
  }

  // Leases leave updated_at alone: it tracks the run's state, and renewals every few seconds
  // would make every running run look freshly changed.
  async claimRun(
    id: string,
    claim: { owner: string; leaseUntil: number; now: number; takeOverFrom?: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('runs')
      .set({ owner: claim.owner, lease_until: claim.leaseUntil })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('owner', 'is', null),
          eb('owner', '=', claim.owner),
          eb('lease_until', '<', claim.now),
          ...(claim.takeOverFrom === undefined ? [] : [eb('owner', '=', claim.takeOverFrom)]),
        ]),
      )
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async renewLease(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const result = await this.db
      .updateTable('runs')
      .set({ lease_until: leaseUntil })
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async releaseRun(id: string, owner: string): Promise<void> {
    await this.db
      .updateTable('runs')
      .set({ owner: null, lease_until: null })
      .where('id', '=', id)
      .where('owner', '=', owner)
      .execute();
  }

  async requestApproval(request: {
    runId: string;
    stepId: string;
    prompt: string;
    deadline: number | null;
    now: number;
  }): Promise<void> {
    await this.db
      .insertInto('approvals')
      .values({
        run_id: request.runId,
        step_id: request.stepId,
        prompt: request.prompt,
        status: 'pending',
        requested_at: request.now,
        deadline: request.deadline,
        decided_by: null,
        comment: null,
        decided_at: null,
      })
      .onConflict((oc) => oc.columns(['run_id', 'step_id']).doNothing())
      .execute();
  }

  async getApproval(runId: string, stepId: string): Promise<ApprovalRecord | undefined> {
    const row = await this.db
      .selectFrom('approvals')
      .selectAll()
      .where('run_id', '=', runId)
      .where('step_id', '=', stepId)
      .executeTakeFirst();
    return row === undefined ? undefined : toApprovalRecord(row);
  }

  async resolveApproval(runId: string, stepId: string, decision: ApprovalDecision): Promise<boolean> {
    // The status guard is the whole arbitration: only the first UPDATE still sees 'pending'.
    const result = await this.db
      .updateTable('approvals')
      .set({ status: decision.status, decided_by: decision.by, comment: decision.comment, decided_at: decision.at })
      .where('run_id', '=', runId)
      .where('step_id', '=', stepId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Oldest request first. */
  async listApprovals(filter: { status?: ApprovalStatus; runId?: string } = {}): Promise<ApprovalRecord[]> {
    let query = this.db.selectFrom('approvals').selectAll();
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.runId !== undefined) query = query.where('run_id', '=', filter.runId);
    const rows = await query.orderBy('requested_at').orderBy('run_id').orderBy('step_id').execute();
    return rows.map(toApprovalRecord);
  }
}
