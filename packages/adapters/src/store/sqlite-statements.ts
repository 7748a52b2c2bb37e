/**
 * The SQLite store's statements: built with Kysely once, prepared once on the raw connection,
 * bound per call — the hot path never goes through Kysely's async pipeline.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { type Compilable, type Expression, type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { SqliteStoreDatabase } from './schema.ts';

/** run_log.pos = runs.num × SEQ_SPAN + the row's first seq: each run owns a range of 2^24 positions. */
export const SEQ_SPAN = 2 ** 24;

const PARAM = '\u0000weft-param:';

/** Stands in for a value when a statement is compiled once and bound on every call. */
function param(name: string): never {
  return `${PARAM}${name}` as never;
}

/**
 * Compiles a Kysely query once and prepares it on the raw connection. `params` names the
 * placeholders in the order callers bind them; that this is the order Kysely emitted is checked
 * here, once, so a builder change fails loudly at open instead of binding values to wrong columns.
 */
function prepareCompiled(raw: DatabaseSync, query: Compilable, params: readonly string[]): StatementSync {
  const { sql, parameters } = query.compile();
  const ordered = parameters.length === params.length && params.every((name, i) => parameters[i] === param(name));
  if (!ordered)
    throw new Error(`run store: statement binds [${parameters.join(', ')}], expected [${params.join(', ')}]`);
  return raw.prepare(sql);
}

type LogExpressions = ExpressionBuilder<SqliteStoreDatabase, 'runs' | 'run_log'>;

export interface Statements {
  begin: StatementSync;
  commit: StatementSync;
  rollback: StatementSync;
  runNumber: StatementSync;
  rowsAfter: StatementSync;
  append: StatementSync;
  events: StatementSync;
  journal: StatementSync;
  /** A run's fixtures (whether a model turn was answered by one). */
  fixtures: StatementSync;
  /** Adds a commit's turns to a run's tokens for one (model, reason to be free). */
  addUsage: StatementSync;
  /** Adds them to the run's totals (left NULL for a run from before they were counted). */
  addTokens: StatementSync;
}

export function prepareStatements(db: Kysely<SqliteStoreDatabase>, raw: DatabaseSync): Statements {
  const span = sql.lit(SEQ_SPAN);
  // A run's rows from position `from`, `runs` joined for its number: one lookup of the run,
  // then a rowid range scan that is already in order. (Kysely does not parenthesize nested
  // operators by itself: parens() does.)
  const logOf = (from: (eb: LogExpressions) => Expression<number>) =>
    db
      .selectFrom('runs')
      .innerJoin('run_log', (join) =>
        join.on((eb) =>
          eb.and([
            eb('run_log.pos', '>=', from(eb)),
            eb('run_log.pos', '<', eb(eb.parens('runs.num', '+', sql.lit(1)), '*', span)),
          ]),
        ),
      )
      .where('runs.id', '=', param('runId'));
  const base = (eb: LogExpressions) => eb.parens('runs.num', '*', span);
  return {
    // For commits of several runs, and to catch up with another process. IMMEDIATE: take the
    // write lock first (waiting up to the busy timeout), so what is read in the transaction is
    // the latest state and stays so; a deferred one could find its snapshot stale at the first write.
    begin: raw.prepare('BEGIN IMMEDIATE'),
    commit: raw.prepare('COMMIT'),
    rollback: raw.prepare('ROLLBACK'),
    runNumber: prepareCompiled(raw, db.selectFrom('runs').select('num').where('id', '=', param('runId')), ['runId']),
    rowsAfter: prepareCompiled(
      raw,
      db
        .selectFrom('run_log')
        .select(['pos', 'events', 'journal'])
        .where('pos', '>', param('after'))
        .where('pos', '<', param('end'))
        .orderBy('pos'),
      ['after', 'end'],
    ),
    // Appends a row at the position of its first seq, as one statement: the hot path is a single
    // autocommit INSERT, like the raw baseline. It inserts nothing (changes = 0) when that
    // position is taken, i.e. the log went on past what the caller knew (see commit); OR IGNORE
    // can only skip that, as no value is ever null and foreign keys are not subject to it. Nor
    // when `runId` is not the run numbered `num` any more (the SELECT finds no row).
    append: prepareCompiled(
      raw,
      db
        .insertInto('run_log')
        .orIgnore()
        .columns(['pos', 'run_id', 'events', 'journal', 'at'])
        .expression(
          db
            .selectFrom('runs')
            .select((eb) => [
              eb.val<number>(param('pos')).as('pos'),
              'id',
              eb.val<string | null>(param('events')).as('events'),
              eb.val<string | null>(param('journal')).as('journal'),
              eb.val<number>(param('at')).as('at'),
            ])
            .where('id', '=', param('runId'))
            .where('num', '=', param('num')),
        ),
      ['pos', 'events', 'journal', 'at', 'runId', 'num'],
    ),
    // From the last row that begins at or before `afterSeq` (it may hold later seqs too).
    events: prepareCompiled(
      raw,
      logOf((eb) =>
        eb.fn.coalesce(
          eb
            .selectFrom('run_log as prior')
            .select((sub) => sub.fn.max('prior.pos').as('pos'))
            .where('prior.pos', '>', base(eb))
            .where('prior.pos', '<=', eb(base(eb), '+', param('afterSeq'))),
          eb(base(eb), '+', sql.lit(1)),
        ),
      )
        .select((eb) => [eb('run_log.pos', '&', sql.lit(SEQ_SPAN - 1)).as('first'), 'run_log.events', 'run_log.at'])
        .where('run_log.events', 'is not', null)
        .orderBy('run_log.pos'),
      ['afterSeq', 'runId'],
    ),
    journal: prepareCompiled(
      raw,
      logOf((eb) => eb(base(eb), '+', sql.lit(1)))
        .select('run_log.journal')
        .where('run_log.journal', 'is not', null)
        .orderBy('run_log.pos'),
      ['runId'],
    ),
    fixtures: prepareCompiled(raw, db.selectFrom('runs').select('fixtures').where('id', '=', param('runId')), [
      'runId',
    ]),
    addUsage: prepareCompiled(
      raw,
      db
        .insertInto('run_usage')
        .values({
          run_id: param('runId'),
          model: param('model'),
          free: param('free'),
          turns: param('turns'),
          input_tokens: param('input'),
          output_tokens: param('output'),
        })
        .onConflict((oc) =>
          oc.columns(['run_id', 'model', 'free']).doUpdateSet((eb) => ({
            turns: eb('run_usage.turns', '+', eb.ref('excluded.turns')),
            input_tokens: eb('run_usage.input_tokens', '+', eb.ref('excluded.input_tokens')),
            output_tokens: eb('run_usage.output_tokens', '+', eb.ref('excluded.output_tokens')),
          })),
        ),
      ['runId', 'model', 'free', 'turns', 'input', 'output'],
    ),
    addTokens: prepareCompiled(
      raw,
      db
        .updateTable('runs')
        .set((eb) => ({
          input_tokens: eb('input_tokens', '+', param('input')),
          output_tokens: eb('output_tokens', '+', param('output')),
        }))
        .where('id', '=', param('runId')),
      ['input', 'output', 'runId'],
    ),
  };
}
