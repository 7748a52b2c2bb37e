/**
 * `weft runs replay <runId> --from <checkpoint>`: a new run of the run's pinned flow that
 * answers every checkpoint completed before `--from` from the run's journal (no call, no cost)
 * and `--pin`ned ones with the values given; the rest runs, streaming progress like `weft run`.
 * The source run is not changed; the new one records which run and checkpoint it replays.
 */

import { createInterface } from 'node:readline/promises';
import { BACKEND_NAMES, type BackendName } from '@weft/adapters/backends';
import type { ReplayPreview } from '@weft/adapters/service';
import type { Json } from '@weft/engine';
import { cliDecider, parseVerdict, terminalIsInteractive } from '../../approvals.ts';
import { type Command, parseCommandArgs } from '../../args.ts';
import { readEnv } from '../../context.ts';
import { parseJson, protoKeyRefusal, readInputArg } from '../../files.ts';
import { CliError, EXIT, plural, stderr, stdout, UsageError } from '../../output.ts';
import { SERVER_OPTION, SERVER_USAGE, serverUrl } from '../../remote.ts';
import { openRunAccess } from '../../run-access.ts';

const usage = `Usage: weft runs replay <runId> --from <checkpoint> [options]

Starts a new run from a checkpoint of a past run. Every checkpoint (model turn, tool call,
code or http step, child run) that completed before <checkpoint> is answered from the past
run's journal: not executed again, not paid for again. <checkpoint> and everything after it
run, unless pinned. Approvals decided before <checkpoint> keep their decision; sleeps run
again. A recorded answer is only used for the very call it answered: where an edited input or
flow makes a call differ, it runs.

Options:
  --from <checkpoint>        where to run again from: a step id or path (e.g. draft, agent/llm#3)
  --pin <checkpoint>=<json|@file>
                             answer this checkpoint with a value instead of executing it
                             (repeatable; a model turn may be pinned as its text)
  --live <step>              execute this step (or checkpoint) again although it completed
                             before <checkpoint> (repeatable)
  --version original|current
                             the flow version the past run ran (default), or the flow's current
                             one: a step that changed, no longer exists or comes after an added or
                             changed step is not reused (the plan says which)
  --ask-approvals            ask approvals decided before <checkpoint> again
  --input <json|@file>       run with this input instead of the past run's
  --backend <name>           run the replay on another backend than the past run's
  --flows <dir>              where \`spawn\` finds flows (default: the past run's folder)
  --yes                      replay even though steps with side effects (http other than GET,
                             tools, code, child runs) will run again; without it the command
                             asks at a terminal and refuses elsewhere
  --json                     print { "runId", "status", "output", "replayOf", "reused", "executed",
                             "pinned" } last (reused / executed: the checkpoints the replay
                             answered from the past run / ran itself)
${SERVER_USAGE}
  -h, --help                 show this help

Exit status: 0 completed, 1 failed, 2 parked waiting for an approval.`;

export const runsReplayCommand: Command = {
  name: 'replay',
  summary: 'run again from a checkpoint of a past run, reusing what came before',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        from: { type: 'string' },
        pin: { type: 'string', multiple: true },
        live: { type: 'string', multiple: true },
        version: { type: 'string' },
        'ask-approvals': { type: 'boolean' },
        input: { type: 'string' },
        backend: { type: 'string' },
        flows: { type: 'string' },
        yes: { type: 'boolean' },
        json: { type: 'boolean' },
        ...SERVER_OPTION,
      },
      positionals: { min: 1, max: 1, names: '<runId>' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const { values } = args;
    const sourceId = args.positionals[0]!;
    if (!values.from) throw new UsageError('--from <checkpoint> is required', usage);
    if (values.backend !== undefined && !(BACKEND_NAMES as readonly string[]).includes(values.backend))
      throw new UsageError(`unknown backend '${values.backend}'; one of: ${BACKEND_NAMES.join(', ')}`, usage);
    if (values.version !== undefined && values.version !== 'original' && values.version !== 'current')
      throw new UsageError(`--version must be 'original' or 'current', got '${values.version}'`, usage);
    const env = readEnv();
    const pins = await parsePins(values.pin ?? [], env.maxInputBytes);
    const input =
      values.input === undefined ? undefined : ((await readInputArg(values.input, env.maxInputBytes)) as Json);
    const request = {
      from: values.from,
      ...(Object.keys(pins).length > 0 ? { pins } : {}),
      ...(values.live && values.live.length > 0 ? { live: values.live } : {}),
      ...(values.version ? { version: values.version as 'original' | 'current' } : {}),
      ...(values['ask-approvals'] ? { approvals: 'ask' as const } : {}),
      ...(input !== undefined ? { input } : {}),
      ...(values.backend ? { backend: values.backend as BackendName } : {}),
    };
    const json = values.json === true;

    const decider = cliDecider(new Map(), terminalIsInteractive());
    const runs = await openRunAccess({ server: serverUrl(values.server), env, flowsDir: values.flows, decider });
    try {
      await confirmSideEffects(await runs.previewReplay(sourceId, request), values.yes === true);
      // Confirmed (or nothing to confirm): the service checks it again against its own plan.
      const replay = await runs.replay(sourceId, { ...request, confirmSideEffects: true });
      describe(replay, sourceId, values.from);
      return await runs.follow(replay.runId, { json, decider, extra: { pinned: replay.pinned } });
    } finally {
      await runs.close();
    }
  },
};

/**
 * `--pin id=<json>` / `--pin id=@file`; an inline value that is not JSON is taken as text (a
 * model turn's). One that is JSON is held to the rule for all outside JSON: a `"__proto__"` key
 * is refused, not passed on as text.
 */
async function parsePins(values: readonly string[], maxBytes: number | undefined): Promise<Record<string, Json>> {
  const pins: Record<string, Json> = Object.create(null);
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new UsageError(`--pin expects <checkpoint>=<json|@file>, got '${value}'`, usage);
    const checkpoint = value.slice(0, eq);
    const text = value.slice(eq + 1);
    pins[checkpoint] = text.startsWith('@')
      ? ((await readInputArg(text, maxBytes)) as Json)
      : inlinePin(checkpoint, text);
  }
  return pins;
}

function inlinePin(checkpoint: string, text: string): Json {
  let parsed: Json;
  try {
    parsed = parseJson(text, `--pin ${checkpoint}`) as Json;
  } catch {
    return text;
  }
  const refusal = protoKeyRefusal(parsed, `--pin ${checkpoint}`);
  if (refusal) throw new UsageError(refusal, usage);
  return parsed;
}

/**
 * Steps that change the world outside the run and would fire again need a yes: `--yes`, or the
 * person at the terminal; elsewhere the command refuses, naming them.
 */
async function confirmSideEffects(preview: ReplayPreview, yes: boolean): Promise<void> {
  const tokens = preview.tokensSaved.input + preview.tokensSaved.output;
  const money = preview.costSaved.usd > 0 ? `, $${preview.costSaved.usd.toFixed(4)}` : '';
  const unpriced =
    preview.costSaved.unpriced.length > 0 ? `; no price known for ${preview.costSaved.unpriced.join(', ')}` : '';
  const saved = tokens > 0 ? ` (${tokens} tokens${money} not spent again${unpriced})` : '';
  stderr.write(
    `  replay plan (flow version ${preview.flowVersion}): reuse ${plural(preview.reused.length, 'checkpoint')}${saved}` +
      `${preview.pinned.length > 0 ? `, pin ${preview.pinned.join(', ')}` : ''}` +
      `${preview.approvals.length > 0 ? `, give ${plural(preview.approvals.length, 'decision')} again` : ''}, run again: ${preview.rerun.join(', ') || 'nothing'}\n`,
  );
  for (const item of preview.notReused) stderr.write(`    not reused: ${item.checkpoint} — ${item.reason}\n`);
  if (preview.sideEffects.length === 0 || yes) return;
  const named = preview.sideEffects.map((step) => `${step.stepId} (${step.stepType})`).join(', ');
  if (!terminalIsInteractive())
    throw new CliError(`these steps have side effects and would run again: ${named}; pass --yes to replay anyway`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`  ${named} will run again (side effects). Replay? [y/N] `);
    if (parseVerdict(answer) !== true) throw new CliError('replay not started');
  } finally {
    rl.close();
  }
}

function describe(replay: { runId: string; reused: string[]; pinned: string[] }, sourceId: string, from: string) {
  const reused = replay.reused.length > 0 ? `: ${replay.reused.join(', ')}` : '';
  stderr.write(
    `${stderr.style('bold', '↺ replay')} of run ${sourceId} from ${from} as run ${replay.runId} · reusing ${plural(replay.reused.length, 'checkpoint')}${reused}` +
      `${replay.pinned.length > 0 ? ` · pinned: ${replay.pinned.join(', ')}` : ''}\n`,
  );
}
