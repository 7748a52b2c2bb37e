/**
 * `weft backend up|down|status [temporal|inngest]`: an engine's dev server on loopback for this
 * data folder. The binary is built by scripts/ensure-<name>.sh when missing; the server runs
 * detached, its pid and address kept in WEFT_DATA/backends/<name>.json, its log beside it.
 * What differs per engine (binary, arguments, readiness, what to export) is one row of DEV_SERVERS.
 */
import { spawn } from 'node:child_process';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExternalBackendName } from '@weft/adapters/backends';
import { inngestDevServerArgs as inngestArgs, inngestBinary } from '@weft/adapters/inngest';
import { connectTemporal, devServerArgs as temporalArgs, temporalBinary } from '@weft/adapters/temporal';
import { type Command, parseCommandArgs, positiveInt } from '../args.ts';
import { readEnv } from '../context.ts';
import { CliError, EXIT, stderr, stdout, UsageError } from '../output.ts';

const usage = `Usage: weft backend up|down|status [temporal|inngest] [--port <n>]

  up temporal     build the Temporal dev server if needed, start it on 127.0.0.1 and print
                  TEMPORAL_ADDRESS=… and TEMPORAL_UI_URL=… (its Web UI, on the port + 1000;
                  its database persists in WEFT_DATA/backends/; eager activity execution on)
  up inngest      build the Inngest dev server if needed, start it on 127.0.0.1 and print
                  INNGEST_DEV=1 and INNGEST_BASE_URL=… (its state lives in memory)
  down <name>     stop it
  status [name]   show whether they run (exit 0 when one asked about runs)

Options:
  --port <n>   the port for \`up\` (default: temporal 7233, inngest 8288)
  -h, --help   show this help`;

interface DevServer {
  defaultPort: number;
  binary(): Promise<string>;
  args(port: number, dir: string): Promise<string[]>;
  /** What clients connect to, kept in the state file. */
  address(port: number): string;
  ready(address: string): Promise<boolean>;
  /** The settings that point weft at it, one NAME=value per line on stdout. */
  settings(address: string): string[];
}

const DEV_SERVERS: Record<ExternalBackendName, DevServer> = {
  temporal: {
    defaultPort: 7233,
    binary: temporalBinary,
    // The Web UI on port + 1000 (7233 → 8233, Temporal's own convention): runs link to it.
    args: (port, dir) =>
      temporalArgs({ port, uiPort: port + 1000, ui: true, dbFile: join(dir, 'temporal.db'), logLevel: 'warn' }),
    address: (port) => `127.0.0.1:${port}`,
    async ready(address) {
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
    },
    settings: (address) => [
      `TEMPORAL_ADDRESS=${address}`,
      `TEMPORAL_UI_URL=http://127.0.0.1:${Number(address.split(':').at(-1)) + 1000}`,
    ],
  },
  inngest: {
    defaultPort: 8288,
    binary: inngestBinary,
    args: (port) => inngestArgs({ port }),
    address: (port) => `http://127.0.0.1:${port}`,
    async ready(address) {
      try {
        return (await fetch(`${address}/health`)).ok;
      } catch {
        return false;
      }
    },
    settings: (address) => ['INNGEST_DEV=1', `INNGEST_BASE_URL=${address}`],
  },
};
const NAMES = Object.keys(DEV_SERVERS) as ExternalBackendName[];

interface ServerState {
  pid: number;
  address: string;
  log: string;
  startedAt: number;
}

export const backendCommand: Command = {
  name: 'backend',
  summary: 'start/stop a local Temporal or Inngest dev server (up|down|status <name>)',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { port: { type: 'string' } },
      positionals: { min: 1, max: 2, names: 'up|down|status [temporal|inngest]' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const [action, name] = args.positionals as [string, string | undefined];
    if (!['up', 'down', 'status'].includes(action))
      throw new UsageError(`unknown action '${action}'; expected up, down or status`, usage);
    if (name !== undefined && !NAMES.includes(name as ExternalBackendName))
      throw new UsageError(`unknown backend '${name}'; available: ${NAMES.join(', ')}`, usage);
    if (name === undefined && action !== 'status')
      throw new UsageError(`say which backend to ${action}: ${NAMES.join(' or ')}`, usage);
    const dir = join(readEnv().dataDir, 'backends');
    if (action === 'status') return status(dir, name ? [name as ExternalBackendName] : NAMES);
    const backend = name as ExternalBackendName;
    if (action === 'down') return down(backend, dir);
    const port = positiveInt(args.values.port, '--port', usage) ?? DEV_SERVERS[backend].defaultPort;
    return up(backend, dir, port);
  },
};

const stateFile = (dir: string, name: ExternalBackendName) => join(dir, `${name}.json`);

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

function printSettings(server: DevServer, address: string): void {
  for (const line of server.settings(address)) stdout.write(`${line}\n`);
}

async function up(name: ExternalBackendName, dir: string, port: number): Promise<number> {
  const server = DEV_SERVERS[name];
  const file = stateFile(dir, name);
  const running = await readState(file);
  if (running) {
    stderr.write(`${name} already running (pid ${running.pid})\n`);
    printSettings(server, running.address);
    return EXIT.ok;
  }
  await mkdir(dir, { recursive: true });
  stderr.write(`locating the ${name} binary (built once from the Go module proxy if missing)…\n`);
  const binary = await server.binary();
  const address = server.address(port);
  const log = join(dir, `${name}.log`);
  const logFile = await open(log, 'a');
  const child = spawn(binary, await server.args(port, dir), {
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
  await writeFile(file, `${JSON.stringify(state, null, 2)}\n`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined) {
      await rm(file, { force: true });
      const tail = (await readFile(log, 'utf8').catch(() => '')).slice(-2000);
      throw new CliError(`${name} exited (${exited}) while starting; log ${log}:\n${tail}`);
    }
    if (await server.ready(address)) break;
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGTERM');
      await rm(file, { force: true });
      throw new CliError(`${name} on ${address} not ready within 60 s; see ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stderr.write(`${name} dev server up (pid ${pid}, log ${log}); stop it with: weft backend down ${name}\n`);
  printSettings(server, address);
  return EXIT.ok;
}

async function down(name: ExternalBackendName, dir: string): Promise<number> {
  const file = stateFile(dir, name);
  const state = await readState(file);
  if (!state) {
    await rm(file, { force: true });
    stderr.write(`${name} is not running\n`);
    return EXIT.ok;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (alive(state.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive(state.pid)) process.kill(state.pid, 'SIGKILL');
  await rm(file, { force: true });
  stderr.write(`${name} stopped (pid ${state.pid})\n`);
  return EXIT.ok;
}

async function status(dir: string, names: ExternalBackendName[]): Promise<number> {
  let running = false;
  for (const name of names) {
    const state = await readState(stateFile(dir, name));
    if (!state) {
      stdout.write(`${name}: stopped\n`);
      continue;
    }
    running = true;
    stdout.write(`${name}: running (pid ${state.pid}) ${DEV_SERVERS[name].settings(state.address).join(' ')}\n`);
  }
  return running ? EXIT.ok : EXIT.failed;
}
