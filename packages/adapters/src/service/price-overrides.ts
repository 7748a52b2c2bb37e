/**
 * The user's own model prices, which win over the genai-prices tables: a JSON file named by the
 * `WEFT_PRICES` environment variable,
 *
 *   { "openai:gpt-4o-mini": { "inputPerMillion": 0.15, "outputPerMillion": 0.6 },
 *     "local:llama3": { "inputPerMillion": 0, "outputPerMillion": 0 } }
 *
 * keyed by the model exactly as a step names it. For a model the tables lack (a local one, a
 * negotiated price). Read when prices are asked for, and again only when the file changed, so
 * an edit takes effect without a restart and a running server does not re-parse it per request.
 * A file that cannot be used is reported (once per problem) and ignored, never thrown: a typo in
 * the prices must not take replay, search and costs down with it.
 */
import { readFileSync, type Stats, statSync } from 'node:fs';
import { z } from 'zod';

export interface PriceOverride {
  /** US dollars per million input tokens. */
  inputPerMillion: number;
  outputPerMillion: number;
}

export type PriceOverrides = Readonly<Record<string, PriceOverride>>;

/** A prices file that cannot be used, naming the file and the field. */
export class PriceConfigError extends Error {
  readonly file: string;
  /** The path in the document (`"openai:gpt-4o".inputPerMillion`), or '' for the file as a whole. */
  readonly field: string;
  constructor(file: string, field: string, problem: string, options?: { cause?: unknown }) {
    super(`WEFT_PRICES file ${file}: ${field === '' ? '' : `${field}: `}${problem}`, options);
    this.name = 'PriceConfigError';
    this.file = file;
    this.field = field;
  }
}

const perMillion = z.number().finite().nonnegative();
const overrideSchema = z.strictObject({ inputPerMillion: perMillion, outputPerMillion: perMillion });
const modelKey = z.string().regex(/^[^:\s]+:\S+$/, 'a model must be named "<provider>:<model>", as a step names it');
const overridesSchema = z.record(modelKey, overrideSchema);

/** Parses and checks a prices document; `file` names it in errors. */
export function parsePriceOverrides(text: string, file: string): PriceOverrides {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new PriceConfigError(file, '', `not JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = overridesSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A bad key is reported as "Invalid key in record", its reason nested.
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    throw new PriceConfigError(file, fieldOf(issue.path), message);
  }
  // Own keys only, on an object without a prototype: a model called "constructor" is a model.
  return Object.assign(Object.create(null) as Record<string, PriceOverride>, parsed.data);
}

/** `"openai:gpt-4o".inputPerMillion`: model keys quoted, as they hold colons and dots. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (i === 0 ? JSON.stringify(String(part)) : String(part))).join('.');
}

const NONE: PriceOverrides = Object.freeze(Object.create(null));

/** The file as last read: its overrides, or why it cannot be used (then none: the tables alone). */
let cached:
  | { file: string; mtimeMs: number; size: number; overrides: PriceOverrides; problem: PriceConfigError | null }
  | undefined;

/**
 * Told of each distinct problem with the prices file, once, with the sentence to show (the
 * problem and what happens meanwhile): a price question never fails for it.
 */
export type PriceProblemReporter = (problem: PriceConfigError, line: string) => void;

const toStderr: PriceProblemReporter = (_problem, line) => {
  process.stderr.write(`weft: ${line}\n`);
};
let reporter: PriceProblemReporter = toStderr;
/** The message last reported, so a server answering many requests says it once; cleared by a good file. */
let lastReported: string | undefined;

/**
 * Sends WEFT_PRICES problems to `report` from now on (`weft serve`: its log; by default stderr)
 * and checks the file now, so a bad one is reported at start-up rather than at the first price.
 */
export function reportPriceProblems(
  report: PriceProblemReporter,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  reporter = report;
  lastReported = undefined;
  priceOverrides(env);
}

/**
 * The overrides `WEFT_PRICES` names: none when it is unset, and none when the file cannot be used
 * (unreadable, not JSON, a field wrong), which is reported once and never thrown: prices then come
 * from the tables alone, and a fixed file takes effect when it changes.
 */
export function priceOverrides(env: Readonly<Record<string, string | undefined>>): PriceOverrides {
  const file = env.WEFT_PRICES;
  const { overrides, problem } = file === undefined || file === '' ? { overrides: NONE, problem: null } : read(file);
  if (problem === null) lastReported = undefined;
  else if (problem.message !== lastReported) {
    lastReported = problem.message;
    reporter(problem, `${problem.message}; pricing with the built-in tables (genai-prices) until it is fixed`);
  }
  return overrides;
}

/** Reads the file again only when it changed (its modification time or size). */
function read(file: string): { overrides: PriceOverrides; problem: PriceConfigError | null } {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (error) {
    return unusable(new PriceConfigError(file, '', `cannot be read (${(error as Error).message})`, { cause: error }));
  }
  if (cached && cached.file === file && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
  let result: { overrides: PriceOverrides; problem: PriceConfigError | null };
  if (!stat.isFile()) {
    result = unusable(new PriceConfigError(file, '', `is ${stat.isDirectory() ? 'a directory' : 'not a file'}`));
  } else {
    try {
      result = { overrides: parsePriceOverrides(readFileSync(file, 'utf8'), file), problem: null };
    } catch (error) {
      result = unusable(
        error instanceof PriceConfigError
          ? error
          : new PriceConfigError(file, '', `cannot be read (${(error as Error).message})`, { cause: error }),
      );
    }
  }
  cached = { file, mtimeMs: stat.mtimeMs, size: stat.size, ...result };
  return result;
}

function unusable(problem: PriceConfigError): { overrides: PriceOverrides; problem: PriceConfigError } {
  return { overrides: NONE, problem };
}
