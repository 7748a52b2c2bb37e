/**
 * `weft runs diff <runA> <runB>`: two runs compared step by step (engine `compareRuns`): which
 * steps are the same, which differ and how (a structural diff of status, input, output and
 * error), which ran in one run only, where they first diverge, and the difference in tokens
 * and time. Exit 0 when nothing differs, 1 when something does, as `diff` does.
 */
import { compareRuns, type Json, type JsonChange, type StepComparison } from '@weft/engine';
import { type Command, parseCommandArgs } from '../../args.ts';
import { readEnv } from '../../context.ts';
import { EXIT, printJsonLine, redact, stdout } from '../../output.ts';
import { SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { openRunAccess } from '../../run-access.ts';

const usage = `Usage: weft runs diff <runA> <runB> [--json]

Compares two runs (of one flow, or a run and its replay) step by step: = same, ≠ different
(with what changed), − only in A, + only in B; the first divergence in A's execution order;
the output; tokens and time (B minus A).

Options:
  --json      print the comparison as one JSON object
${SERVER_USAGE}
  -h, --help  show this help

Exit status: 0 the runs did the same, 1 they differ.`;

const MARK: Record<StepComparison['kind'], string> = { same: '=', different: '≠', 'only-a': '−', 'only-b': '+' };

export const runsDiffCommand: Command = {
  name: 'diff',
  summary: 'compare two runs step by step',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: { json: { type: 'boolean' }, ...SERVER_OPTION },
      positionals: { min: 2, max: 2, names: '<runA> <runB>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const runs = await openRunAccess({ server: serverUrl(args.values.server), env: readEnv() });
    try {
      const [a, b] = await Promise.all(args.positionals.map((runId) => runs.state(runId)));
      const comparison = compareRuns(a!.state, b!.state);
      const differs = comparison.firstDivergence !== null || !comparison.output.same;
      if (args.values.json) {
        printJsonLine({ a: a!.run.id, b: b!.run.id, ...comparison } as unknown as Record<string, Json>);
        return differs ? EXIT.failed : EXIT.ok;
      }
      const label = (side: typeof a) =>
        `${side!.run.id} (${side!.run.flowId}@${side!.run.flowVersion}, ${side!.run.status})`;
      stdout.write(`A ${label(a)}\nB ${label(b)}\n`);
      stdout.write(
        comparison.firstDivergence ? `first divergence: ${comparison.firstDivergence}\n` : 'every step the same\n',
      );
      const width = Math.min(40, Math.max(...comparison.steps.map((step) => step.stepId.length), 4));
      for (const step of comparison.steps) {
        const what =
          step.kind === 'different'
            ? step.changes.map(describe).join('; ')
            : step.kind === 'only-a'
              ? 'only in A'
              : step.kind === 'only-b'
                ? 'only in B'
                : '';
        const line = `  ${MARK[step.kind]} ${step.stepId.padEnd(width)}  ${what}`.trimEnd();
        stdout.write(`${line}\n`);
      }
      stdout.write(
        `run output: ${comparison.output.same ? 'the same' : comparison.output.changes.map(describe).join('; ')}\n`,
      );
      const ms = comparison.delta.durationMs;
      stdout.write(`B − A: ${signed(comparison.delta.tokens)} tokens${ms === null ? '' : `, ${signed(ms)} ms`}\n`);
      return differs ? EXIT.failed : EXIT.ok;
    } finally {
      await runs.close();
    }
  },
};

function describe(change: JsonChange): string {
  const path = change.path.join('.');
  const show = (value: unknown) => redact(truncate(JSON.stringify(value) ?? 'undefined'));
  if (change.type === 'CREATE') return `${path}: + ${show(change.value)}`;
  if (change.type === 'REMOVE') return `${path}: − ${show(change.oldValue)}`;
  return `${path}: ${show(change.oldValue)} → ${show(change.value)}`;
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}
