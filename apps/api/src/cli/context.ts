/**
 * Opens what a command needs from the environment: the run store (`DATABASE_URL` for
 * PostgreSQL, else a SQLite file under `WEFT_DATA`, default `data/`), and for commands that
 * execute runs, an in-process runner with the executor registry (model keys from the env),
 * the folder `spawn` reads flows from, and the approval decider.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createExecutorRegistry } from '@weft/adapters/executors';
import {
  type ApprovalDecider,
  directoryFlowSource,
  type FlowSource,
  InProcessRunner,
  memoryFlowSource,
} from '@weft/adapters/inprocess';
import { openStore, type RunStore } from '@weft/adapters/store';
import { CliError, redact } from './output.ts';

export interface CliEnv {
  dataDir: string;
  databaseUrl: string | undefined;
  maxInputBytes: number | undefined;
}

export function readEnv(env: Record<string, string | undefined> = process.env): CliEnv {
  const raw = env.WEFT_MAX_INPUT_BYTES;
  let maxInputBytes: number | undefined;
  if (raw !== undefined && raw !== '') {
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      throw new CliError(`WEFT_MAX_INPUT_BYTES must be a positive number of bytes (got '${raw}')`);
    }
    maxInputBytes = Number(raw);
  }
  return {
    dataDir: resolve(env.WEFT_DATA || 'data'),
    databaseUrl: env.DATABASE_URL || undefined,
    maxInputBytes,
  };
}

export async function openStoreFromEnv(env: CliEnv = readEnv()): Promise<RunStore> {
  try {
    return await openStore(env.databaseUrl ? { url: env.databaseUrl } : { dataDir: env.dataDir });
  } catch (error) {
    const where = env.databaseUrl ? 'the PostgreSQL database in DATABASE_URL' : join(env.dataDir, 'weft.db');
    throw new CliError(`cannot open the run store (${where}): ${redact(messageOf(error))}`);
  }
}

export interface RunnerContext {
  env: CliEnv;
  store: RunStore;
  runner: InProcessRunner;
  close(): Promise<void>;
}

export async function openRunner(
  options: { flowsDir?: string | undefined; decide?: ApprovalDecider; env?: CliEnv; store?: RunStore } = {},
): Promise<RunnerContext> {
  const env = options.env ?? readEnv();
  const flows = options.flowsDir ? await flowSource(options.flowsDir) : memoryFlowSource([]);
  const store = options.store ?? (await openStoreFromEnv(env));
  const runner = new InProcessRunner({
    store,
    executors: createExecutorRegistry(),
    flows,
    ...(options.decide ? { decide: options.decide } : {}),
    ...(env.maxInputBytes !== undefined ? { maxInputBytes: env.maxInputBytes } : {}),
  });
  return {
    env,
    store,
    runner,
    async close() {
      await runner.close().catch(() => undefined);
      await store.close().catch(() => undefined);
    },
  };
}

export async function flowSource(dir: string): Promise<FlowSource> {
  try {
    return await directoryFlowSource(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError(`flows folder not found: ${dir}`);
    if (code === 'ENOTDIR') throw new CliError(`--flows must be a folder: ${dir}`);
    throw new CliError(`cannot read the flows folder ${dir}: ${messageOf(error)}`);
  }
}

/*
 * The folder `spawn` reads flows from is not part of a run's record, yet a run resumed in a
 * later process (`weft approve`, `weft runs resume`) may still have to spawn. The CLI remembers
 * it per root run in a small file under the data folder; `--flows` overrides it.
 */
function flowDirFile(env: CliEnv, rootRunId: string): string {
  return join(env.dataDir, 'cli', 'flow-dirs', `${encodeURIComponent(rootRunId)}.txt`);
}

export async function rememberFlowsDir(env: CliEnv, rootRunId: string, dir: string): Promise<void> {
  const file = flowDirFile(env, rootRunId);
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, resolve(dir));
  } catch {
    // Only a convenience for later resumes: `--flows` still works without it.
  }
}

export async function recalledFlowsDir(env: CliEnv, rootRunId: string): Promise<string | undefined> {
  try {
    return (await readFile(flowDirFile(env, rootRunId), 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
