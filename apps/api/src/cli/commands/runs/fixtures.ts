/**
 * `weft runs fixtures <runId> [-o file]`: the run's model turns as a fixtures file, so
 * `weft run --fixtures file` re-runs it offline, exactly. Child runs' turns are included under
 * the spawn step's path (`<spawnStep>/<childStep>`), which is where a child run looks first, so
 * a parent and a child with the same llm step id never collide.
 */
import { writeFile } from 'node:fs/promises';
import { type Fixtures, fixturesFromEvents } from '@weft/engine';
import { type Command, parseCommandArgs } from '../../args.ts';
import { openStoreFromEnv } from '../../context.ts';
import { CliError, EXIT, plural, stderr, stdout } from '../../output.ts';
import { collectEvents, connect, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { getRunOrFail, runTree } from '../../tree.ts';

const usage = `Usage: weft runs fixtures <runId> [-o <file>]

Exports the run's model turns as { "<llm step path>": [ { text?, toolCalls?, object? }, … ] }.
Re-run it offline with: weft run <flow.json> --fixtures <file>

Options:
  -o, --output <file>  write to a file instead of stdout
${SERVER_USAGE}
  -h, --help           show this help`;

export const runsFixturesCommand: Command = {
  name: 'fixtures',
  summary: "export a run's model turns as fixtures",
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { output: { type: 'string', short: 'o' }, ...SERVER_OPTION },
      positionals: { min: 1, max: 1, names: '<runId>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const server = serverUrl(args.values.server);
    let fixtures: Fixtures;
    if (server) fixtures = await remoteFixtures(server, args.positionals[0]!);
    else {
      const store = await openStoreFromEnv();
      try {
        const run = await getRunOrFail(store, args.positionals[0]!);
        fixtures = fixturesFromEvents(await store.readEvents(run.id));
        const prefixes = new Map<string, string>([[run.id, '']]);
        for (const child of (await runTree(store, run)).slice(1)) {
          const prefix = `${prefixes.get(child.parentRunId ?? '') ?? ''}${child.parentStepId ?? child.id}/`;
          prefixes.set(child.id, prefix);
          for (const [path, turns] of Object.entries(fixturesFromEvents(await store.readEvents(child.id)))) {
            fixtures[`${prefix}${path}`] = turns;
          }
        }
      } finally {
        await store.close();
      }
    }
    const text = `${JSON.stringify(fixtures, null, 2)}\n`;
    const steps = Object.keys(fixtures).length;
    const turns = Object.values(fixtures).reduce((sum, list) => sum + list.length, 0);
    if (args.values.output) {
      try {
        await writeFile(args.values.output, text);
      } catch (error) {
        throw new CliError(`cannot write ${args.values.output}: ${(error as Error).message}`);
      }
      stderr.write(`wrote ${plural(turns, 'model turn')} of ${plural(steps, 'llm step')} to ${args.values.output}\n`);
    } else {
      stdout.write(text);
      if (steps === 0) stderr.write('the run has no completed model turns\n');
    }
    return EXIT.ok;
  },
};

/** The same export from the API: each run's events replayed over the events subscription. */
async function remoteFixtures(server: string, runId: string): Promise<Fixtures> {
  const remote = connect(server);
  const fixtures: Fixtures = {};
  const queue: { runId: string; prefix: string }[] = [{ runId, prefix: '' }];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const { runId: id, prefix } = queue[i]!;
    const events = await collectEvents(remote, id);
    for (const [path, turns] of Object.entries(fixturesFromEvents(events))) fixtures[`${prefix}${path}`] = turns;
    for (const event of events) {
      if (event.type === 'child.started') queue.push({ runId: event.childRunId, prefix: `${prefix}${event.stepId}/` });
    }
  }
  return fixtures;
}
