/**
 * What the in-process runner needs from storage. Two implementations share one schema and one
 * query layer (Kysely): SQLite through `node:sqlite` (the embedded default) and PostgreSQL.
 */
import type { ErrorInfo, Json, RunEvent, RunEventInput, RunStatus } from '@weft/engine';

export interface RunRecord {
  id: string;
  flowId: string;
  flowVersion: number;
  /** The IR snapshot the run is pinned to. */
  flow: Json;
  input: Json;
  status: RunStatus;
  output: Json | null;
  error: ErrorInfo | null;
  backend: string;
  parentRunId: string | null;
  parentStepId: string | null;
  /** The run and checkpoint this run was replayed from (RunService.replay), if it was. */
  replayOf: { runId: string; checkpoint: string } | null;
  /**
   * Where a run started in-process continues on a durable engine (RunService.start): `backend`
   * says where it executes now, this what was asked. Null for a run without a hand-off.
   */
  handoff: RunHandoff | null;
  /** Recorded model turns that replace the provider for this run. */
  fixtures: Json | null;
  /** Who is executing the run now ("host:pid:nonce") and until when that claim holds (ms epoch). */
  owner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /** When the run reached a final status (ms epoch); null while it runs. */
  endedAt: number | null;
  /** Its model turns' tokens so far; null for a run created before the store counted them. */
  tokens: { input: number; output: number } | null;
}

/** A run's hand-off: the engine it continues on and the point (`first-tool-call` or a step id). */
export interface RunHandoff {
  to: 'temporal' | 'inngest';
  at: string;
}

export type NewRun = Pick<RunRecord, 'id' | 'flowId' | 'flowVersion' | 'flow' | 'input' | 'backend'> &
  Partial<Pick<RunRecord, 'parentRunId' | 'parentStepId' | 'fixtures' | 'status' | 'replayOf' | 'handoff'>>;

export interface RunFilter {
  flowId?: string;
  status?: RunStatus[];
  backend?: string;
  parentRunId?: string;
  /** Only the replays of this run. */
  replayOf?: string;
  /** Only runs that have left the in-process runner for the engine their `handoff` names. */
  handedOff?: boolean;
  /** Only runs created at or after this time (ms epoch). */
  since?: number;
  limit?: number;
}

/**
 * Why a model turn costs nothing: a `mock:` model, a recorded fixture answered it, or it was
 * reused from the run's seed (a replay's source run paid for it).
 */
export type FreeReason = 'mock' | 'fixture' | 'reused';

/** A run's model-turn tokens for one model and one reason to be free (null: paid). */
export interface ModelUsage {
  model: string;
  free: FreeReason | null;
  turns: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * The runs screen's query: every filter optional, newest first (created_at, then id, both
 * descending), paged by an opaque cursor that names the last run of the previous page, so a
 * page never repeats or skips a run when newer runs arrive.
 */
export interface RunSearchQuery {
  flowId?: string;
  flowVersion?: number;
  /** Any of these statuses; an empty list matches nothing. */
  status?: RunStatus[];
  /** Any of these backends; an empty list matches nothing. */
  backend?: string[];
  /** Created at or after (ms epoch). */
  since?: number;
  /** Created before (ms epoch). */
  until?: number;
  /**
   * Words that must all occur in the run's input, output or error message, each as a word
   * prefix (`refun` finds `refund`), case-insensitive; searched by the database's full-text index.
   */
  text?: string;
  /** Only runs that are no other run's child (default true). */
  rootOnly?: boolean;
  /** From `nextCursor` of the previous page; null or absent for the first. */
  cursor?: string | null;
  /** Runs per page. */
  limit: number;
}

/** One run as a list shows it: no flow snapshot, no fixtures, input and output cut to a preview. */
export interface RunListItem {
  id: string;
  flowId: string;
  flowVersion: number;
  status: RunStatus;
  backend: string;
  /** The JSON text of the input, cut to PREVIEW_CHARS (then ending in "…"). */
  inputPreview: string;
  /** Likewise the output; null when the run has none. */
  outputPreview: string | null;
  error: ErrorInfo | null;
  parentRunId: string | null;
  parentStepId: string | null;
  replayOf: { runId: string; checkpoint: string } | null;
  /** The hand-off asked for; `backend` is where the run is now (the target once handed off). */
  handoff: RunHandoff | null;
  hasFixtures: boolean;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
  tokens: { input: number; output: number } | null;
  /** Tokens per model and reason to be free, to price at read time; empty when `tokens` is null. */
  usage: ModelUsage[];
}

export interface RunSearchPage {
  runs: RunListItem[];
  /** Pass back as `cursor` for the next page; null when this page is the last. */
  nextCursor: string | null;
}

/** One checkpointed step's recorded result. Failures are recorded too, so a replay fails the same way. */
export interface JournalEntry {
  stepId: string;
  kind: string;
  /** Hash of the call's input: a replay that asks for the same id with other input is a determinism error. */
  inputHash: string;
  status: 'completed' | 'failed';
  output: Json | null;
  error: ErrorInfo | null;
}

/** Everything one group commit writes for one run. */
export interface CommitBatch {
  runId: string;
  journal: JournalEntry[];
  events: RunEventInput[];
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'timed-out';

export interface ApprovalRecord {
  runId: string;
  stepId: string;
  prompt: string;
  status: ApprovalStatus;
  requestedAt: number;
  /** When a pending approval times out (ms epoch); null waits forever. */
  deadline: number | null;
  decidedBy: string | null;
  comment: string | null;
  decidedAt: number | null;
}

export interface ApprovalDecision {
  status: Exclude<ApprovalStatus, 'pending'>;
  by: string | null;
  comment: string | null;
  at: number;
}

/** One saved version of a flow. Versions are immutable; every save adds the next one. */
export interface FlowVersionRecord {
  id: string;
  version: number;
  name: string;
  /** The IR document as saved, with `version` set to this version. */
  doc: Json;
  createdAt: number;
}

export interface FlowSummary {
  id: string;
  name: string;
  latestVersion: number;
  createdAt: number;
  updatedAt: number;
}

/** The flow table the API keeps: flows by id, each with its immutable versions. */
export interface FlowStore {
  /**
   * Saves `doc` as the next version of flow `doc.id` (1 for a new flow) and returns it. Two
   * concurrent saves of one flow get two different versions, never the same one.
   */
  save(doc: Json & { id: string; name: string }): Promise<FlowVersionRecord>;
  /**
   * Saves `doc` as a new flow only when no (live) flow has its id, atomically: of concurrent
   * creates of one id exactly one gets the record, the others undefined. A deleted flow's id is
   * free again (its next version number, as `save` would give).
   */
  create(doc: Json & { id: string; name: string }): Promise<FlowVersionRecord | undefined>;
  /** The given version, or the latest when `version` is omitted; undefined for an unknown or deleted flow. */
  get(id: string, version?: number): Promise<FlowVersionRecord | undefined>;
  list(): Promise<FlowSummary[]>;
  versions(id: string): Promise<{ version: number; name: string; createdAt: number }[]>;
  /** Removes the flow and all its versions (runs keep their pinned snapshot); false if unknown. */
  delete(id: string): Promise<boolean>;
}

/** A conversation with a flow served as a chat backend (the API's chat endpoint). */
export interface ChatRecord {
  id: string;
  flowId: string;
  title: string;
  /** The AI SDK's UI messages, as the chat keeps them (the active run's answer is not in yet). */
  messages: Json[];
  /** The run answering the last user message, until its answer is settled into `messages`. */
  activeRunId: string | null;
  createdAt: number;
  updatedAt: number;
  /**
   * The credential that created it: `sha256:<hex>` of its bearer token (never the token), or
   * `anonymous` on a server that requires none; null only for a chat from before owners.
   */
  owner: string | null;
}

export type ChatSummary = Omit<ChatRecord, 'messages' | 'owner'>;

export interface ChatStore {
  get(id: string): Promise<ChatRecord | undefined>;
  /** Newest first, at most `limit` (default 100); `owner`: only that credential's chats. */
  list(filter?: { flowId?: string; owner?: string; limit?: number }): Promise<ChatSummary[]>;
  /**
   * Creates the chat, or replaces it (its `createdAt` and owner kept) when it has the same owner.
   * False when a chat with this id belongs to another owner: nothing is written.
   */
  put(chat: Omit<ChatRecord, 'createdAt' | 'updatedAt' | 'owner'> & { owner: string }, now: number): Promise<boolean>;
  /** Gives every chat without an owner (from before owners) to `owner`; how many it took. */
  adoptUnowned(owner: string): Promise<number>;
  /**
   * Writes the answered conversation and clears the active run, only while `runId` is still the
   * active one: of two settlers of one answer exactly one writes. Returns whether this one did.
   */
  settle(id: string, runId: string, messages: Json[], now: number): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}

export interface RunStore {
  readonly dialect: 'sqlite' | 'postgres';
  readonly flows: FlowStore;
  readonly chats: ChatStore;
  close(): Promise<void>;

  /** Removes a run with its log and approvals, and its child runs; false if unknown. */
  deleteRun(id: string): Promise<boolean>;

  createRun(run: NewRun): Promise<void>;
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /** The runs screen's page: filtered, full-text searched and paged by the database. */
  searchRuns(query: RunSearchQuery): Promise<RunSearchPage>;
  /** A run's tokens per model (what the list prices); empty for an unknown run. */
  runUsage(runId: string): Promise<ModelUsage[]>;
  /** `backend` changes only when a run hands off (inprocess/handoff.ts). */
  updateRun(
    id: string,
    patch: { status?: RunStatus; output?: Json | null; error?: ErrorInfo | null; backend?: string },
  ): Promise<void>;

  /**
   * Takes ownership of a run for execution. Succeeds when nobody owns it, `owner` already does,
   * the current lease ended before `now`, or the current owner is `takeOverFrom` (a process
   * known to be dead). Returns whether this caller now owns the run.
   */
  claimRun(
    id: string,
    claim: { owner: string; leaseUntil: number; now: number; takeOverFrom?: string },
  ): Promise<boolean>;
  /** Extends the lease; returns false when someone else took the run. */
  renewLease(id: string, owner: string, leaseUntil: number): Promise<boolean>;
  releaseRun(id: string, owner: string): Promise<void>;

  loadJournal(runId: string): Promise<JournalEntry[]>;
  /**
   * Writes journal entries and events of any number of runs in ONE transaction (group commit).
   * Events whose `eventKey` the run already holds are skipped; the rest get the run's next
   * sequence numbers in order. Returns the events actually stored, with `seq` and `at`.
   */
  commit(batches: CommitBatch[]): Promise<RunEvent[]>;
  /**
   * Stored events of a run with `seq > afterSeq`, in order; at most `limit` of them when given.
   * `maxBytes`, a page's budget: the store may stop early, after about that many bytes of events
   * (at least one event), reading and parsing them without holding the event loop throughout;
   * the caller reads on from the last seq it got.
   */
  readEvents(runId: string, afterSeq?: number, limit?: number, maxBytes?: number): Promise<RunEvent[]>;

  /**
   * Every event committed to this database, with its seq: this process's commits right after
   * they commit, another process's (PostgreSQL NOTIFY, SQLite's write-ahead log changing) once
   * read back, for the runs the listener watches. Whoever writes — the in-process runner, a
   * Temporal activity, an Inngest step — the listener hears it the same way. An event may be
   * heard twice; seqs tell. Returns the unsubscribe function.
   */
  onEvents(listener: (events: RunEvent[]) => void, options?: EventFeedOptions): () => void;

  /** Records a pending approval; does nothing if one exists for (runId, stepId). */
  requestApproval(request: {
    runId: string;
    stepId: string;
    prompt: string;
    deadline: number | null;
    now: number;
  }): Promise<void>;
  getApproval(runId: string, stepId: string): Promise<ApprovalRecord | undefined>;
  /** Exactly one of several concurrent decisions wins: returns true only for it. */
  resolveApproval(runId: string, stepId: string, decision: ApprovalDecision): Promise<boolean>;
  listApprovals(filter?: { status?: ApprovalStatus; runId?: string }): Promise<ApprovalRecord[]>;
}

export interface EventFeedOptions {
  /**
   * The runs this listener wants (default: every run). Another process's commits are read from
   * the store only for runs some listener watches; this process's own reach every listener.
   */
  watching?: (runId: string) => boolean;
}
