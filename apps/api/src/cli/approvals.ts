/**
 * Who decides an approval the CLI reaches: a matching `--approve step=yes|no`, else the person
 * at the terminal (only when stdin and stderr are both TTYs), else nobody — the run parks and
 * the command prints how to resolve it later.
 */
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { ApprovalDecider } from '@weft/adapters/inprocess';
import { stderr, UsageError } from './output.ts';

export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER || process.env.USERNAME || 'cli';
  }
}

/** yes|no (and the obvious spellings) → boolean; undefined when it is neither. */
export function parseVerdict(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (['y', 'yes', 'approve', 'approved', 'true', 'ok'].includes(word)) return true;
  if (['n', 'no', 'reject', 'rejected', 'false', 'deny'].includes(word)) return false;
  return undefined;
}

/** `--approve ok=yes --approve review=no` → Map{ ok → true, review → false }. */
export function parseApproveFlags(values: readonly string[], usage: string): Map<string, boolean> {
  const decisions = new Map<string, boolean>();
  for (const value of values) {
    const eq = value.lastIndexOf('=');
    const verdict = eq > 0 ? parseVerdict(value.slice(eq + 1)) : undefined;
    if (verdict === undefined) throw new UsageError(`--approve expects <stepId>=yes|no, got '${value}'`, usage);
    decisions.set(value.slice(0, eq), verdict);
  }
  return decisions;
}

export interface CliDecider {
  decide: ApprovalDecider;
  /** `--approve` step ids that never matched an approval. */
  unused(): string[];
}

export function cliDecider(presets: ReadonlyMap<string, boolean>, interactive: boolean): CliDecider {
  const used = new Set<string>();
  const by = osUser();
  return {
    async decide({ stepId, prompt }) {
      // The full path first ("each[0]/ok"), then the bare id ("ok") for every iteration.
      const key = presets.has(stepId) ? stepId : stepId.slice(stepId.lastIndexOf('/') + 1);
      const preset = presets.get(key);
      if (preset !== undefined) {
        used.add(key);
        return { approved: preset, by };
      }
      if (!interactive) return undefined;
      return ask(stepId, prompt, by);
    },
    unused: () => [...presets.keys()].filter((key) => !used.has(key)),
  };
}

export function terminalIsInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Asks at the terminal; Ctrl-C or Ctrl-D leaves the approval pending (the run parks). */
async function ask(
  stepId: string,
  prompt: string,
  by: string,
): Promise<{ approved: boolean; by: string; comment?: string } | undefined> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const cancelled = new Promise<undefined>((resolve) => {
    rl.on('SIGINT', () => resolve(undefined));
    rl.on('close', () => resolve(undefined));
  });
  try {
    stderr.write(`\n  ${stderr.style(['bold', 'yellow'], 'approval')} ${stepId}: ${prompt}\n`);
    for (;;) {
      const answer = await Promise.race([rl.question('  approve? [y/n] (Ctrl-C to decide later) '), cancelled]);
      if (answer === undefined) {
        stderr.write('\n');
        return undefined;
      }
      const approved = parseVerdict(answer);
      if (approved === undefined) continue;
      const comment = await Promise.race([rl.question('  comment (optional): '), cancelled]);
      return { approved, by, ...(comment ? { comment } : {}) };
    }
  } finally {
    rl.close();
  }
}
