/**
 * The tables as Kysely sees them, and the mapping between rows and the records of types.ts.
 * JSON values are stored as text in both dialects (not PG jsonb): text gives back exactly the
 * document that went in (jsonb reorders keys and drops duplicates), and one encoding keeps the
 * two dialects interchangeable.
 */
import {
  type ErrorInfo,
  isFinalStatus,
  type Json,
  type RunEvent,
  type RunEventInput,
  type RunStatus,
} from '@weft/engine';
import type { Generated } from 'kysely';
import type {
  ApprovalRecord,
  ApprovalStatus,
  FlowVersionRecord,
  JournalEntry,
  NewRun,
  RunHandoff,
  RunRecord,
} from './types.ts';

export interface RunsTable {
  id: string;
  flow_id: string;
  flow_version: number;
  flow: string;
  input: string;
  status: RunStatus;
  output: string | null;
  error: string | null;
  backend: string;
  parent_run_id: string | null;
  parent_step_id: string | null;
  replay_of_run_id: string | null;
  replay_of_checkpoint: string | null;
  /** `{ to, at }` as JSON text: where the run hands off (migration 0006). */
  handoff: string | null;
  fixtures: string | null;
  owner: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
  /** Set when the status becomes final (migration 0004). */
  ended_at: number | null;
  /** Model-turn tokens, added up at commit; null for runs from before migration 0004. */
  input_tokens: number | null;
  output_tokens: number | null;
}

/** A run's model-turn tokens per (model, reason to be free): see migrations/0004_run_search.ts. */
export interface RunUsageTable {
  run_id: string;
  model: string;
  /** '' when paid, else a FreeReason. */
  free: string;
  turns: number;
  input_tokens: number;
  output_tokens: number;
}

/**
 * The columns of `runs` a RunRecord is read from. Listed rather than `select *`: PostgreSQL's
 * runs also hold the search tsvector, which no reader wants back.
 */
export const RUN_COLUMNS = [
  'id',
  'flow_id',
  'flow_version',
  'flow',
  'input',
  'status',
  'output',
  'error',
  'backend',
  'parent_run_id',
  'parent_step_id',
  'replay_of_run_id',
  'replay_of_checkpoint',
  'handoff',
  'fixtures',
  'owner',
  'lease_until',
  'created_at',
  'updated_at',
  'ended_at',
  'input_tokens',
  'output_tokens',
] as const satisfies readonly (keyof RunsTable)[];

/**
 * PostgreSQL's run log: one row per event or journal entry, in commit order. (SQLite keeps one
 * row per commit instead: SqliteRunLogTable.)
 */
export interface PostgresRunLogTable {
  run_id: string;
  /** Increases per run; shared by events and journal rows, so event seqs may skip numbers. */
  seq: number;
  kind: 'event' | 'journal';
  /** `eventKey(event)` or `journal:<stepId>`; null for deltas, which never dedupe. */
  key: string | null;
  /** The event type, or 'journal'. */
  type: string;
  /** The whole event as emitted, or the JournalEntry. */
  payload: string;
  at: number;
}

/**
 * SQLite's run log: ONE row per (run, commit), in a rowid table. `pos` (the INTEGER PRIMARY KEY,
 * i.e. the rowid) is `runs.num × 2^24 + the first seq the row takes`, so a run's rows are one
 * contiguous rowid range in commit order; see migrations/0001_initial.ts for why.
 */
export interface SqliteRunLogTable {
  pos: number;
  run_id: string;
  /**
   * The commit's new events for the run as a JSON array, each as emitted, or null when none.
   * They hold seqs `first … first + n - 1` (first = pos mod 2^24). A row without events still
   * takes one seq (its position), so the next row begins at first + max(n, 1).
   */
  events: string | null;
  /** The commit's new journal entries for the run as a JSON array, or null when none. */
  journal: string | null;
  at: number;
}

export function journalKey(stepId: string): string {
  return `journal:${stepId}`;
}

export interface ApprovalsTable {
  run_id: string;
  step_id: string;
  prompt: string;
  status: ApprovalStatus;
  requested_at: number;
  deadline: number | null;
  decided_by: string | null;
  comment: string | null;
  decided_at: number | null;
}

export interface FlowsTable {
  id: string;
  name: string;
  latest_version: number;
  /** 1 once deleted: the row stays so that the version numbering of its id goes on. */
  deleted: number;
  created_at: number;
  updated_at: number;
}

export interface FlowVersionsTable {
  id: string;
  version: number;
  name: string;
  doc: string;
  created_at: number;
}

/** The tables both dialects lay out alike: all that kysely-store.ts queries. */
export interface ChatsTable {
  id: string;
  flow_id: string;
  title: string;
  messages: string;
  active_run_id: string | null;
  created_at: number;
  updated_at: number;
  /** `sha256:<hex>` of the creating credential, or `anonymous`; NULL only for rows from before 0007. */
  owner: string | null;
}

export interface StoreDatabase {
  chats: ChatsTable;
  runs: RunsTable;
  run_usage: RunUsageTable;
  approvals: ApprovalsTable;
  flows: FlowsTable;
  flow_versions: FlowVersionsTable;
}

export interface PostgresStoreDatabase extends StoreDatabase {
  run_log: PostgresRunLogTable;
}

export interface SqliteStoreDatabase extends StoreDatabase {
  /** `num` is the rowid, declared (INTEGER PRIMARY KEY) so that VACUUM keeps it: run_log positions derive from it. */
  runs: RunsTable & { num: Generated<number> };
  run_log: SqliteRunLogTable;
}

/** Encodes a required JSON value; `undefined` (not JSON) is stored as null rather than failing the write. */
export function encodeJson(value: Json | undefined): string {
  return JSON.stringify(value ?? null);
}

/** Encodes a nullable JSON column: SQL NULL stands for null. */
export function encodeNullable(value: Json | ErrorInfo | null | undefined): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** The row a new run is stored as, in both dialects. Tokens are counted from here on, at commit (usage.ts). */
export function newRunRow(run: NewRun, now: number): RunsTable {
  const status = run.status ?? 'running';
  return {
    id: run.id,
    flow_id: run.flowId,
    flow_version: run.flowVersion,
    flow: encodeJson(run.flow),
    input: encodeJson(run.input),
    status,
    output: null,
    error: null,
    backend: run.backend,
    parent_run_id: run.parentRunId ?? null,
    replay_of_run_id: run.replayOf?.runId ?? null,
    replay_of_checkpoint: run.replayOf?.checkpoint ?? null,
    handoff: run.handoff ? JSON.stringify(run.handoff) : null,
    parent_step_id: run.parentStepId ?? null,
    fixtures: encodeNullable(run.fixtures),
    owner: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
    ended_at: isFinalStatus(status) ? now : null,
    input_tokens: 0,
    output_tokens: 0,
  };
}

function decode<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

/**
 * The run as the store holds it. `flow` is decoded when first read: most readers want the
 * status or the owner, and a large flow document costs more to parse than the rest of the row.
 * (V8 keeps an object with an accessor in dictionary mode, ~1.5 KB a record; a record in the
 * literal is made so at once, where redefining the property made it so twice.)
 */
export function toRunRecord(row: RunsTable): RunRecord {
  let flowText: string | undefined = row.flow;
  let flow: Json = null;
  return {
    id: row.id,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    get flow(): Json {
      if (flowText !== undefined) {
        flow = JSON.parse(flowText) as Json;
        flowText = undefined;
      }
      return flow;
    },
    set flow(value: Json) {
      flow = value;
      flowText = undefined;
    },
    input: JSON.parse(row.input) as Json,
    status: row.status,
    output: decode<Json>(row.output),
    error: decode<ErrorInfo>(row.error),
    backend: row.backend,
    parentRunId: row.parent_run_id,
    parentStepId: row.parent_step_id,
    replayOf:
      row.replay_of_run_id === null
        ? null
        : { runId: row.replay_of_run_id, checkpoint: row.replay_of_checkpoint ?? '' },
    handoff: decode<RunHandoff>(row.handoff),
    fixtures: decode<Json>(row.fixtures),
    owner: row.owner,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    tokens: tokensOf(row),
  };
}

export function tokensOf(row: Pick<RunsTable, 'input_tokens' | 'output_tokens'>): RunRecord['tokens'] {
  return row.input_tokens === null || row.output_tokens === null
    ? null
    : { input: row.input_tokens, output: row.output_tokens };
}

export function toJournalEntry(row: Pick<PostgresRunLogTable, 'payload'>): JournalEntry {
  return JSON.parse(row.payload) as JournalEntry;
}

/** The event as emitted plus where the store put it; the same shape `commit` returns. */
export function toRunEvent(row: Pick<PostgresRunLogTable, 'run_id' | 'seq' | 'payload' | 'at'>): RunEvent {
  return { ...(JSON.parse(row.payload) as RunEventInput), runId: row.run_id, seq: row.seq, at: row.at };
}

export function toApprovalRecord(row: ApprovalsTable): ApprovalRecord {
  return {
    runId: row.run_id,
    stepId: row.step_id,
    prompt: row.prompt,
    status: row.status,
    requestedAt: row.requested_at,
    deadline: row.deadline,
    decidedBy: row.decided_by,
    comment: row.comment,
    decidedAt: row.decided_at,
  };
}

export function toFlowVersionRecord(row: FlowVersionsTable): FlowVersionRecord {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    doc: JSON.parse(row.doc) as Json,
    createdAt: row.created_at,
  };
}

/** The document as stored: `version` set to the version it is saved as (in place when it had one). */
export function withVersion(doc: Json & { id: string; name: string }, version: number): string {
  return JSON.stringify({ ...(doc as Record<string, Json>), version });
}
