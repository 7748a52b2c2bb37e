/**
 * `weft backend up|down|status temporal`: a Temporal dev server on loopback for this data
 * folder. The binary is built by scripts/ensure-temporal.sh when missing; the server runs
 * detached, its pid and address kept in WEFT_DATA/backends/temporal.json, its log beside it.
 */
import { spawn } from 'node:child_process';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectTemporal, devServerArgs, temporalBinary } from '@weft/adapters/temporal';
import { type Command, parseCommandArgs, positiveInt } from '../args.ts';
import { readEnv } from '../context.ts';
import { CliError, EXIT, stderr, stdout, UsageError } from '../output.ts';

const usage = `Usage: weft backend up|down|status [temporal] [--port <n>]

  up temporal     build the Temporal dev server if needed, start it on 127.0.0.1 and print
                  TEMPORAL_ADDRESS=… (state in WEFT_DATA/backends/; its database persists there)
  down temporal   stop it
  status          show whether it runs

Options:
  --port <n>   the frontend port for \`up\` (default 7233)
  -h, --help   show this help`;

interface ServerState {
  pid: number;
  address: string;
  log: string;
  startedAt: number;
}

export const backendCommand: Command = {
  name: 'backend',
  summary: 'start/stop a local Temporal server (up|down|status temporal)',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { port: { type: 'string' } },
      positionals: { min: 1, max: 2, names: 'up|down|status [temporal]' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const [action, name = 'temporal'] = args.positionals as [string, string | undefined];
    if (name !== 'temporal') throw new UsageError(`unknown backend '${name}'; available: temporal`, usage);
    const dir = join(readEnv().dataDir, 'backends');
    const stateFile = join(dir, 'temporal.json');
    switch (action) {
      case 'up':
        return up(dir, stateFile, positiveInt(args.values.port, '--port', usage) ?? 7233);
      case 'down':
        return down(stateFile);
      case 'status':
        return status(stateFile);
      default:
        throw new UsageError(`unknown action '${action}'; expected up, down or status`, usage);
    }
  },
};

async function readState(file: string): Promise<ServerState | undefined> {
  try {
    const state = JSON.parse(await readFile(file, 'utf8')) as ServerState;
    return alive(state.pid) ? state : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function up(dir: string, stateFile: string, port: number): Promise<number> {
  const running = await readState(stateFile);
  if (running) {
    stderr.write(`temporal already running (pid ${running.pid})\n`);
    stdout.write(`TEMPORAL_ADDRESS=${running.address}\n`);
    return EXIT.ok;
  }
  await mkdir(dir, { recursive: true });
  stderr.write('locating the temporal binary (built once from the Go module proxy if missing)…\n');
  const binary = await temporalBinary();
  const address = `127.0.0.1:${port}`;
  const log = join(dir, 'temporal.log');
  const logFile = await open(log, 'a');
  const child = spawn(binary, await devServerArgs({ port, dbFile: join(dir, 'temporal.db'), logLevel: 'warn' }), {
    detached: true,
    stdio: ['ignore', logFile.fd, logFile.fd],
  });
  await logFile.close();
  const pid = child.pid;
  if (pid === undefined) throw new CliError(`could not start ${binary}`);
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  child.unref();
  const state: ServerState = { pid, address, log, startedAt: Date.now() };
  await writeFile(stateFile, `${JSON.stringify(state, null, 2)}\n`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined) {
      await rm(stateFile, { force: true });
      const tail = (await readFile(log, 'utf8').catch(() => '')).slice(-2000);
      throw new CliError(`temporal exited (${exited}) while starting; log ${log}:\n${tail}`);
    }
    if (await ready(address)) break;
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGTERM');
      await rm(stateFile, { force: true });
      throw new CliError(`temporal on ${address} not ready within 60 s; see ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stderr.write(`temporal dev server up (pid ${pid}, log ${log}); stop it with: weft backend down temporal\n`);
  stdout.write(`TEMPORAL_ADDRESS=${address}\n`);
  return EXIT.ok;
}

async function ready(address: string): Promise<boolean> {
  try {
    const client = await connectTemporal({ address });
    try {
      await client.connection.workflowService.describeNamespace({ namespace: 'default' });
      return true;
    } finally {
      await client.connection.close();
    }
  } catch {
    return false;
  }
}

async function down(stateFile: string): Promise<number> {
  const state = await readState(stateFile);
  if (!state) {
    await rm(stateFile, { force: true });
    stderr.write('temporal is not running\n');
    return EXIT.ok;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive(state.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive(state.pid)) process.kill(state.pid, 'SIGKILL');
  await rm(stateFile, { force: true });
  stderr.write(`temporal stopped (pid ${state.pid})\n`);
  return EXIT.ok;
}

async function status(stateFile: string): Promise<number> {
  const state = await readState(stateFile);
  if (!state) {
    stdout.write('temporal: stopped\n');
    return EXIT.failed;
  }
  stdout.write(`temporal: running (pid ${state.pid}) TEMPORAL_ADDRESS=${state.address}\n`);
  return EXIT.ok;
}
