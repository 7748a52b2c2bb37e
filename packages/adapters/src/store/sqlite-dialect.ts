/**
 * Kysely on Node's built-in `node:sqlite`. Kysely 0.29 ships a SQLite dialect written against
 * better-sqlite3's shape (`prepare(sql)` → statement with `reader`, `all(params[])`, ...), not a
 * `node:sqlite` driver, so this adapts `DatabaseSync` to that shape and reuses the rest.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';

/** Enough for every distinct query the store builds; past it the oldest statement is dropped. */
const STATEMENT_CACHE_SIZE = 256;

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;

  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    // node:sqlite has no `reader` flag; a statement that yields columns returns rows.
    this.reader = stmt.columns().length > 0;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#stmt.all(...(parameters as SQLInputValue[]));
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#stmt.run(...(parameters as SQLInputValue[]));
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#stmt.iterate(...(parameters as SQLInputValue[]));
  }
}

/**
 * Kysely's driver prepares every query it runs; node:sqlite re-parses SQL on each prepare, so
 * statements are cached by their text (parameters are bound per call, so text is the identity).
 */
export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, NodeSqliteStatement>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  prepare(sql: string): SqliteStatement {
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = new NodeSqliteStatement(this.#db.prepare(sql));
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}

/**
 * BEGIN IMMEDIATE instead of Kysely's deferred BEGIN: a transaction that reads before it writes
 * (the migrator reads which migrations ran, then applies the rest) takes the write lock up front,
 * so two processes opening the same file wait for each other instead of both migrating or
 * failing with SQLITE_BUSY when upgrading a read lock.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * SQLite does run DDL inside transactions; Kysely's adapter says it does not, which would make
 * the migrator apply each migration outside one (a crash midway would leave half a schema).
 */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  readonly #database: NodeSqliteDatabase;

  constructor(database: NodeSqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalSqliteAdapter();
  }
}
