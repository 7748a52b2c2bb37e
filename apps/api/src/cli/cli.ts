/**
 * The `weft` command line: dispatches to one module per command, loaded only when used (the
 * runner and model SDKs are not worth loading to print help or validate a file).
 */
import type { Command } from './args.ts';
import { CliError, EXIT, redact, stderr, stdout, UsageError } from './output.ts';

interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

const commands: readonly CommandEntry[] = [
  {
    name: 'validate',
    summary: 'check a flow file and list every problem',
    load: async () => (await import('./commands/validate.ts')).validateCommand,
  },
  {
    name: 'export',
    summary: 'write a flow as TypeScript (--target weft)',
    load: async () => (await import('./commands/export.ts')).exportCommand,
  },
  {
    name: 'import',
    summary: 'read a flow written as TypeScript back into flow JSON',
    load: async () => (await import('./commands/import.ts')).importCommand,
  },
  {
    name: 'run',
    summary: 'run a flow here, streaming progress',
    load: async () => (await import('./commands/run.ts')).runCommand,
  },
  {
    name: 'approve',
    summary: 'decide a pending approval and continue the run',
    load: async () => (await import('./commands/approve.ts')).approveCommandSpec,
  },
  {
    name: 'runs',
    summary: 'list, inspect, resume, replay, compare, cancel runs; save one as a test',
    load: async () => (await import('./commands/runs/index.ts')).runsCommand,
  },
  {
    name: 'test',
    summary: 'run the saved test cases (tests/) offline; JUnit XML for CI',
    load: async () => (await import('./commands/test.ts')).testCommand,
  },
  {
    name: 'worker',
    summary: 'run a Temporal worker (TEMPORAL_ADDRESS) until stopped',
    load: async () => (await import('./commands/worker.ts')).workerCommand,
  },
  {
    name: 'backend',
    summary: 'start/stop a local Temporal or Inngest dev server (up|down|status <name>)',
    load: async () => (await import('./commands/backend.ts')).backendCommand,
  },
  {
    name: 'serve',
    summary: 'start the server: the editor at /, tRPC at /trpc, GET /health',
    load: async () => (await import('./commands/serve.ts')).serveCommand,
  },
];

const usage = `Usage: weft <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Run \`weft <command> --help\` for a command's options.

Environment:
  WEFT_DATA             data folder for the SQLite run store (default: data/)
  PORT, WEFT_TOKEN      \`weft serve\`: port (default 3001) and the bearer token it requires
  WEFT_SERVER           default for --server: talk to a running \`weft serve\` (sends WEFT_TOKEN)
  DATABASE_URL          postgres://… to keep runs in PostgreSQL instead
  OPENAI_API_KEY, ANTHROPIC_API_KEY, WEFT_LOCAL_BASE_URL   model providers (mock:echo needs none)
  WEFT_MAX_INPUT_BYTES  largest accepted run input (default 1 MiB)
  TEMPORAL_ADDRESS      host:port of a Temporal frontend: enables \`--backend temporal\`
  WEFT_TEMPORAL_WORKER  external: \`run\`/\`approve\` rely on \`weft worker temporal\` elsewhere
  INNGEST_DEV           1 (or the dev server's URL): enables \`--backend inngest\` on a dev server
  INNGEST_BASE_URL      the Inngest server's URL (default http://127.0.0.1:8288 with INNGEST_DEV);
                        INNGEST_EVENT_KEY, INNGEST_SIGNING_KEY for one that is not a dev server
  WEFT_INNGEST_SERVE    external: \`run\`/\`approve\` rely on a \`weft serve\` serving the function`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' ? commands.find((c) => c.name === rest[0]) : undefined;
      if (topic) return await (await topic.load()).run(['--help']);
      (name === undefined ? stderr : stdout).write(`${usage}\n`);
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    const command = commands.find((c) => c.name === name);
    if (!command) throw new UsageError(`unknown command '${name}'`, usage);
    return await (await command.load()).run(rest);
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof UsageError) {
    stderr.write(`${stderr.style('red', 'error')}: ${error.message}\n`);
    if (error.usage) stderr.write(`\n${error.usage}\n`);
    return EXIT.usage;
  }
  if (error instanceof CliError) {
    stderr.write(`${stderr.style('red', '✗')} ${redact(error.message)}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`${stderr.style('red', '✗')} ${redact(message)}\n`);
  if (process.env.WEFT_DEBUG && error instanceof Error && error.stack) stderr.write(`${redact(error.stack)}\n`);
  return EXIT.failed;
}
