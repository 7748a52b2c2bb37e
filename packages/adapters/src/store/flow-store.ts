/**
 * The flow table (FlowStore), written once with Kysely. Reads are single statements shared by
 * both dialects. The writes take two statements each and so need a transaction: PostgreSQL runs
 * them in a Kysely transaction; SQLite runs the same compiled statements synchronously on the raw
 * connection inside BEGIN IMMEDIATE (see SqliteFlowStore), because an async transaction on the
 * one SQLite connection could interleave with the run log's synchronous commits.
 *
 * Create: `create` inserts the flow's row only when the id is free (ON CONFLICT … DO UPDATE …
 * WHERE deleted, which returns no row for a live flow), in the same transaction as version 1,
 * so of two concurrent creates of one id exactly one wins.
 *
 * Versions: `flows.latest_version` is bumped by an upsert, which takes the flow's row lock (PG)
 * or runs under the write lock (SQLite), so concurrent saves of one flow get distinct versions.
 */
import type { Json } from '@weft/engine';
import type { Compilable, Kysely } from 'kysely';
import { type StoreDatabase, toFlowVersionRecord, withVersion } from './schema.ts';
import type { FlowStore, FlowSummary, FlowVersionRecord } from './types.ts';

export type FlowDoc = Json & { id: string; name: string };

/** Bumps (or starts at 1) the flow's latest version, reviving a deleted flow; returns the version. */
export function upsertFlow(db: Kysely<StoreDatabase>, id: string, name: string, now: number) {
  return db
    .insertInto('flows')
    .values({ id, name, latest_version: 1, deleted: 0, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        latest_version: eb('flows.latest_version', '+', 1),
        name: eb.ref('excluded.name'),
        updated_at: eb.ref('excluded.updated_at'),
        deleted: 0,
        created_at: eb
          .case()
          .when('flows.deleted', '=', 1)
          .then(eb.ref('excluded.created_at'))
          .else(eb.ref('flows.created_at'))
          .end(),
      })),
    )
    .returning('latest_version');
}

/**
 * Inserts the flow's row at version 1 only when no live row has its id (a deleted flow's row is
 * revived at its next version, as `save` does); returns the version, or no row when the id is taken.
 */
export function insertFlowIfAbsent(db: Kysely<StoreDatabase>, id: string, name: string, now: number) {
  return db
    .insertInto('flows')
    .values({ id, name, latest_version: 1, deleted: 0, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({
          latest_version: eb('flows.latest_version', '+', 1),
          name: eb.ref('excluded.name'),
          updated_at: eb.ref('excluded.updated_at'),
          created_at: eb.ref('excluded.created_at'),
          deleted: 0,
        }))
        .where('flows.deleted', '=', 1),
    )
    .returning('latest_version');
}

export function insertVersion(db: Kysely<StoreDatabase>, doc: FlowDoc, version: number, now: number) {
  return db
    .insertInto('flow_versions')
    .values({ id: doc.id, version, name: doc.name, doc: withVersion(doc, version), created_at: now });
}

export function markDeleted(db: Kysely<StoreDatabase>, id: string, now: number) {
  return db.updateTable('flows').set({ deleted: 1, updated_at: now }).where('id', '=', id).where('deleted', '=', 0);
}

export function deleteVersions(db: Kysely<StoreDatabase>, id: string) {
  return db.deleteFrom('flow_versions').where('id', '=', id);
}

function record(doc: FlowDoc, version: number, now: number): FlowVersionRecord {
  return { id: doc.id, version, name: doc.name, doc: JSON.parse(withVersion(doc, version)) as Json, createdAt: now };
}

export class KyselyFlowStore implements FlowStore {
  protected readonly db: Kysely<StoreDatabase>;

  constructor(db: Kysely<StoreDatabase>) {
    this.db = db;
  }

  async save(doc: FlowDoc): Promise<FlowVersionRecord> {
    const now = Date.now();
    const version = await this.db.transaction().execute(async (trx) => {
      const { latest_version } = await upsertFlow(trx, doc.id, doc.name, now).executeTakeFirstOrThrow();
      await insertVersion(trx, doc, latest_version, now).execute();
      return latest_version;
    });
    return record(doc, version, now);
  }

  async create(doc: FlowDoc): Promise<FlowVersionRecord | undefined> {
    const now = Date.now();
    const version = await this.db.transaction().execute(async (trx) => {
      const row = await insertFlowIfAbsent(trx, doc.id, doc.name, now).executeTakeFirst();
      if (row === undefined) return undefined;
      await insertVersion(trx, doc, row.latest_version, now).execute();
      return row.latest_version;
    });
    return version === undefined ? undefined : record(doc, version, now);
  }

  async delete(id: string): Promise<boolean> {
    const now = Date.now();
    return this.db.transaction().execute(async (trx) => {
      const result = await markDeleted(trx, id, now).executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await deleteVersions(trx, id).execute();
      return true;
    });
  }

  async get(id: string, version?: number): Promise<FlowVersionRecord | undefined> {
    let query = this.db
      .selectFrom('flow_versions')
      .innerJoin('flows', 'flows.id', 'flow_versions.id')
      .selectAll('flow_versions')
      .where('flows.id', '=', id)
      .where('flows.deleted', '=', 0);
    query =
      version === undefined
        ? query.whereRef('flow_versions.version', '=', 'flows.latest_version')
        : query.where('flow_versions.version', '=', version);
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : toFlowVersionRecord(row);
  }

  /** Most recently saved first. */
  async list(): Promise<FlowSummary[]> {
    const rows = await this.db
      .selectFrom('flows')
      .selectAll()
      .where('deleted', '=', 0)
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      latestVersion: row.latest_version,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  }

  /** Oldest first. */
  async versions(id: string): Promise<{ version: number; name: string; createdAt: number }[]> {
    const rows = await this.db
      .selectFrom('flow_versions')
      .select(['version', 'name', 'created_at'])
      .where('id', '=', id)
      .orderBy('version')
      .execute();
    return rows.map((row) => ({ version: row.version, name: row.name, createdAt: row.created_at }));
  }
}

/** What SqliteFlowStore needs of the raw connection: one synchronous write transaction. */
export interface SyncWriter {
  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT (ROLLBACK when it throws), synchronously. */
  transaction<T>(fn: () => T): T;
  /** Runs a compiled statement; rows for a RETURNING or SELECT statement. */
  all(query: Compilable): Record<string, unknown>[];
  run(query: Compilable): { changes: number | bigint };
}

export class SqliteFlowStore extends KyselyFlowStore {
  readonly #sync: SyncWriter;

  constructor(db: Kysely<StoreDatabase>, sync: SyncWriter) {
    super(db);
    this.#sync = sync;
  }

  override async save(doc: FlowDoc): Promise<FlowVersionRecord> {
    const now = Date.now();
    const version = this.#sync.transaction(() => {
      const [row] = this.#sync.all(upsertFlow(this.db, doc.id, doc.name, now));
      const version = Number(row!.latest_version);
      this.#sync.run(insertVersion(this.db, doc, version, now));
      return version;
    });
    return record(doc, version, now);
  }

  override async create(doc: FlowDoc): Promise<FlowVersionRecord | undefined> {
    const now = Date.now();
    const version = this.#sync.transaction(() => {
      const [row] = this.#sync.all(insertFlowIfAbsent(this.db, doc.id, doc.name, now));
      if (row === undefined) return undefined;
      const version = Number(row.latest_version);
      this.#sync.run(insertVersion(this.db, doc, version, now));
      return version;
    });
    return version === undefined ? undefined : record(doc, version, now);
  }

  override async delete(id: string): Promise<boolean> {
    const now = Date.now();
    return this.#sync.transaction(() => {
      if (Number(this.#sync.run(markDeleted(this.db, id, now)).changes) === 0) return false;
      this.#sync.run(deleteVersions(this.db, id));
      return true;
    });
  }
}
