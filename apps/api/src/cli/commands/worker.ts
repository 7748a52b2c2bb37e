/**
 * `weft worker temporal`: a Temporal worker over this environment's run store (WEFT_DATA or
 * DATABASE_URL) and a flows folder, until SIGINT/SIGTERM.
 */
import { createExecutorRegistry } from '@weft/adapters/executors';
import { startTemporalWorker } from '@weft/adapters/temporal';
import { backendSettings } from '../../backends.ts';
import { type Command, parseCommandArgs } from '../args.ts';
import { flowSource, openStoreFromEnv, readEnv } from '../context.ts';
import { CliError, EXIT, stderr, stdout, UsageError } from '../output.ts';

const usage = `Usage: weft worker temporal [--flows <dir>]

Runs a Temporal worker for Weft runs (task queue "weft") until Ctrl-C / SIGTERM. Needs
TEMPORAL_ADDRESS; events and results go to the run store of WEFT_DATA / DATABASE_URL.
\`weft run --backend temporal\` then needs no worker of its own: set WEFT_TEMPORAL_WORKER=external.

Options:
  --flows <dir>  where \`spawn\` finds flows by id (default: the current folder)
  -h, --help     show this help`;

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run a backend worker (temporal)',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { flows: { type: 'string' } },
      positionals: { min: 1, max: 1, names: 'temporal' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    if (args.positionals[0] !== 'temporal') {
      throw new UsageError(`unknown worker backend '${args.positionals[0]}'; available: temporal`, usage);
    }
    const settings = backendSettings(process.env).temporal;
    if (!settings) {
      throw new CliError(
        'TEMPORAL_ADDRESS is not set; point it at a Temporal frontend (e.g. the one `weft backend up temporal` prints)',
      );
    }
    const env = readEnv();
    const flows = await flowSource(args.values.flows ?? '.');
    const store = await openStoreFromEnv(env);
    try {
      const { address, namespace } = settings;
      const worker = await startTemporalWorker({
        address,
        ...(namespace ? { namespace } : {}),
        store,
        executors: createExecutorRegistry(),
        flows,
      });
      stderr.write(`worker on ${address}, task queue ${worker.taskQueue}; Ctrl-C to stop\n`);
      const stop = () => void worker.shutdown();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await worker.running;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await worker.shutdown();
      }
      stderr.write('worker stopped\n');
      return EXIT.ok;
    } finally {
      await store.close().catch(() => undefined);
    }
  },
};
