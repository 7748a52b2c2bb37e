/**
 * Executes something on a run tree (start, resume after a decision, resume after a crash) with
 * progress streaming to stderr, then reports the root run's outcome. Ctrl-C leaves the run as
 * it is — durable, resumable by `weft runs resume` at once, since this process is then gone.
 */
import { RunBusyError } from '@weft/adapters/inprocess';
import type { RunnerContext } from './context.ts';
import { CliError, drain, EXIT, stderr } from './output.ts';
import { ProgressRenderer } from './progress.ts';
import { reportOutcome } from './report.ts';
import { getRunOrFail, runTree, shellQuote, treeLabels } from './tree.ts';

/** Another live process executes the run. */
export class BusyError extends CliError {
  constructor(message: string) {
    super(
      `${message.replace(/; try again.*$/, '')}.\n  It is running in another live process; try again when that one ends (or its 30 s lease runs out).`,
    );
  }
}

export async function driveRun(
  ctx: RunnerContext,
  rootRunId: string,
  execute: () => Promise<unknown>,
  options: { json: boolean },
): Promise<number> {
  const runs = await runTree(ctx.store, await getRunOrFail(ctx.store, rootRunId));
  const renderer = new ProgressRenderer(stderr, treeLabels(runs));
  for (const run of runs) renderer.setFixtures(run.id, run.fixtures);
  const detach = ctx.runner.onEvent(renderer.handle);
  const onInterrupt = () => {
    renderer.end();
    const id = shellQuote(rootRunId);
    stderr.write(
      `\n${stderr.style(['bold', 'yellow'], 'interrupted')}: run ${rootRunId} is kept as it was.\n` +
        `  continue it: weft runs resume ${id}\n  stop it:     weft runs cancel ${id}\n`,
    );
    void drain().then(() => process.exit(EXIT.interrupted));
  };
  process.once('SIGINT', onInterrupt);
  try {
    await execute();
  } catch (error) {
    if (error instanceof RunBusyError) throw new BusyError(error.message);
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
    detach();
    renderer.end();
  }
  return reportOutcome(ctx.store, rootRunId, options);
}
