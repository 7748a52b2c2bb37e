/**
 * Opens what a command needs from the environment: the run store (`DATABASE_URL` for
 * PostgreSQL, else a SQLite file under `WEFT_DATA`, default `data/`), and for commands that
 * start or steer runs, the runtime (the run service over the in-process runner and the
 * external engines), with the folder `spawn` reads flows from and the approval decider.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ExternalBackendName } from '@weft/adapters/backends';
import { type ApprovalDecider, directoryFlowSource, type FlowSource, memoryFlowSource } from '@weft/adapters/inprocess';
import { openStore, type RunStore } from '@weft/adapters/store';
import { openRuntime, type Runtime } from '../runtime.ts';
import { openCliExternal } from './external.ts';
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

export interface CliRuntime extends Runtime {
  cliEnv: CliEnv;
  /** Why a run's execution here found it held by another live process, if it did. */
  busy(runId: string): string | undefined;
}

/**
 * The composition root for a command (../runtime.ts): the store, the run service over the
 * in-process runner and the external engines `external` names (opened the CLI's way, see
 * external.ts). With `flowsDir`, this process can execute runs while the command lasts.
 */
export async function openCliRuntime(
  options: {
    flowsDir?: string | undefined;
    decide?: ApprovalDecider;
    env?: CliEnv;
    store?: RunStore;
    external?: readonly ExternalBackendName[];
  } = {},
): Promise<CliRuntime> {
  const env = options.env ?? readEnv();
  const flowsDir = options.flowsDir;
  const store = options.store ?? (await openStoreFromEnv(env));
  const busy = new Map<string, string>();
  let runtime: Runtime;
  try {
    runtime = await openRuntime({
      store,
      flows: async () => (flowsDir ? flowSource(flowsDir) : memoryFlowSource([])),
      ...(options.decide ? { decide: options.decide } : {}),
      ...(env.maxInputBytes !== undefined ? { maxInputBytes: env.maxInputBytes } : {}),
      external: options.external ?? [],
      openExternal: openCliExternal(flowsDir !== undefined),
      onExecuted: (runId, result) => {
        if ('busy' in result) busy.set(runId, result.busy);
        else if ('error' in result) busy.delete(runId);
      },
    });
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return { ...runtime, cliEnv: env, busy: (runId) => busy.get(runId) };
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
