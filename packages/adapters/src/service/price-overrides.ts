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
 */
import { readFileSync, statSync } from 'node:fs';
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
let cached: { file: string; mtimeMs: number; size: number; overrides: PriceOverrides } | undefined;

/** The overrides `WEFT_PRICES` names (none when it is unset); throws PriceConfigError for a bad file. */
export function priceOverrides(env: Readonly<Record<string, string | undefined>>): PriceOverrides {
  const file = env.WEFT_PRICES;
  if (file === undefined || file === '') return NONE;
  let stat: { mtimeMs: number; size: number };
  try {
    stat = statSync(file);
  } catch (error) {
    throw new PriceConfigError(file, '', `cannot be read (${(error as Error).message})`, { cause: error });
  }
  if (cached && cached.file === file && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) {
    return cached.overrides;
  }
  const overrides = parsePriceOverrides(readFileSync(file, 'utf8'), file);
  cached = { file, mtimeMs: stat.mtimeMs, size: stat.size, overrides };
  return overrides;
}
