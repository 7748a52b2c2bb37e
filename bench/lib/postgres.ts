/**
 * PostgreSQL for the benchmark: a throwaway database (random name, created from DATABASE_URL or
 * the default admin URL, dropped at the end) and the raw floor on it — BEGIN; INSERT one row;
 * COMMIT through one `pg` client, i.e. three round trips per step.
 *
 * `pg` is a dependency of @weft/adapters, not of the workspace root, so it is loaded from there;
 * only the few calls used here are typed.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { noop } from './measure.ts';

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

type PgModule = { Client: new (config: { connectionString: string; connectionTimeoutMillis?: number }) => PgClient };

const requireFromAdapters = createRequire(new URL('../../packages/adapters/package.json', import.meta.url));
const pg = requireFromAdapters('pg') as PgModule;

function client(url: string): PgClient {
  return new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
}

export interface BenchDatabase {
  /** URL of the throwaway database. */
  url: string;
  serverVersion: string;
  drop(): Promise<void>;
}

/** Creates a randomly named database next to `adminUrl`'s; throws if the server is unreachable. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const admin = client(adminUrl);
  await admin.connect();
  const name = `weft_bench_${randomBytes(6).toString('hex')}`;
  let serverVersion = '';
  try {
    serverVersion = String((await admin.query('SHOW server_version')).rows[0]?.server_version ?? '');
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    serverVersion,
    async drop() {
      const again = client(adminUrl);
      await again.connect();
      try {
        // FORCE (PostgreSQL 13+) also ends connections a failed run may have left open.
        await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.end();
      }
    },
  };
}

export class RawPostgres {
  readonly #client: PgClient;
  #row = 0;

  private constructor(connection: PgClient) {
    this.#client = connection;
  }

  static async open(url: string): Promise<RawPostgres> {
    const connection = client(url);
    await connection.connect();
    await connection.query(
      'CREATE TABLE IF NOT EXISTS raw (id bigserial PRIMARY KEY, run_id text NOT NULL, step_id text NOT NULL, payload text NOT NULL)',
    );
    return new RawPostgres(connection);
  }

  /** One BEGIN; INSERT; COMMIT of a step's result (the caller has computed it). */
  async commit(output: unknown): Promise<void> {
    const step = `s${this.#row++}`;
    await this.#client.query('BEGIN');
    await this.#insert(step, output);
    await this.#client.query('COMMIT');
  }

  #insert(step: string, output: unknown): Promise<unknown> {
    return this.#client.query('INSERT INTO raw (run_id, step_id, payload) VALUES ($1, $2, $3)', [
      'bench',
      step,
      JSON.stringify({ stepId: step, status: 'completed', output }),
    ]);
  }

  /** `steps` sequential steps of (await no-op; BEGIN; INSERT; COMMIT); returns µs per step. */
  async sequential(steps: number): Promise<number> {
    const start = performance.now();
    for (let i = 0; i < steps; i++) await this.commit(await noop(i));
    return ((performance.now() - start) * 1000) / steps;
  }

  /** As RawSqlite.fanOut: all the no-ops at once, then ONE transaction of `width` rows. Returns ms. */
  async fanOut(width: number): Promise<number> {
    const start = performance.now();
    const outputs = await Promise.all(Array.from({ length: width }, (_, i) => noop(i)));
    await this.#client.query('BEGIN');
    for (const output of outputs) await this.#insert(`s${this.#row++}`, output);
    await this.#client.query('COMMIT');
    return performance.now() - start;
  }

  close(): Promise<void> {
    return this.#client.end();
  }
}
