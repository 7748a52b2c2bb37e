/**
 * Argument parsing on top of `node:util` parseArgs: strict (an unknown flag is a usage error
 * naming it), `--help` on every command, and positional counts checked with a clear message.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { UsageError } from './output.ts';

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

type Values<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; allowPositionals: true }>
>['values'];

export type Parsed<O extends ParseArgsOptionsConfig> =
  | { help: true }
  | { help: false; values: Values<O>; positionals: string[] };

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

export function parseCommandArgs<O extends ParseArgsOptionsConfig>(
  argv: string[],
  spec: { usage: string; options: O; positionals: { min: number; max: number; names: string } },
): Parsed<O> {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { ...spec.options, ...HELP }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeParseError(error), spec.usage);
  }
  if (parsed.values.help === true) return { help: true };
  const { positionals } = parsed;
  if (positionals.length < spec.positionals.min) {
    throw new UsageError(`missing argument: expected ${spec.positionals.names}`, spec.usage);
  }
  if (positionals.length > spec.positionals.max) {
    throw new UsageError(`unexpected argument '${positionals[spec.positionals.max]}'`, spec.usage);
  }
  return { help: false, values: parsed.values as Values<O>, positionals };
}

function describeParseError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1];
    return flag ? `unknown option '${flag}'` : message;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(-[^' ]+)/.exec(message)?.[1];
    if (flag && /argument missing/.test(message)) return `option '${flag}' needs a value`;
    if (flag) return `option '${flag}' takes no value`;
  }
  return message;
}

/** A positive integer flag value, or a usage error naming the flag. */
export function positiveInt(value: string | undefined, flag: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a positive integer`, usage);
  return Number(value);
}
