/**
 * The raw floors beside the in-process rows of bench/backends: the same scenarios done by hand on
 * the same kind of database, one INSERT+COMMIT per checkpoint and nothing else (RawSqlite: a
 * node:sqlite file with the store's pragmas; RawPostgres: one `pg` client on the throwaway
 * database). Sequential: await a no-op, commit, N times. Fan-out: the no-ops at once, then one
 * transaction of every result (the best a group commit can do, as bench/engine row 4). Agent: the
 * native loop (native-agent.ts) with a commit after each model turn and each tool call.
 */
import { noop } from './measure.ts';
import { type NativeBench, type NativeJob, nativeAgentLoop, nativeModelTurn, nativeTool } from './native-agent.ts';
import { RawPostgres } from './postgres.ts';
import { RawSqlite } from './raw-sqlite.ts';

interface RawDatabase {
  commit(output: unknown): unknown;
  fanOut(width: number): Promise<number>;
  close(): unknown;
}

const DESCRIBE =
  'by hand: await the no-op, then BEGIN; INSERT one row; COMMIT, per step and per agent call; a fan-out commits its results in one transaction';

function rawBench(label: string, db: RawDatabase): NativeBench {
  return {
    label,
    describe: DESCRIBE,
    async run(job: NativeJob) {
      if (job.kind === 'sequential') {
        for (let i = 0; i < job.steps; i++) await db.commit(await noop(i));
        return job.steps;
      }
      if (job.kind === 'fanOut') {
        await db.fanOut(job.width);
        return job.width;
      }
      return nativeAgentLoop(
        job.fixtures,
        async (input) => {
          const answer = nativeModelTurn(input);
          await db.commit(answer);
          return answer;
        },
        async (call) => {
          const result = nativeTool(call);
          await db.commit(result);
          return result;
        },
      );
    },
    async close() {
      await db.close();
    },
  };
}

export function openRawSqlite(path: string): NativeBench {
  return rawBench('sqlite raw commit', new RawSqlite(path));
}

export async function openRawPostgres(url: string): Promise<NativeBench> {
  return rawBench('postgres raw commit', await RawPostgres.open(url));
}
