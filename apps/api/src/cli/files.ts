/**
 * Reading the JSON the CLI is given — flow files, `--input`, `--fixtures` — with messages that
 * say which file, and where in it, something is wrong.
 */
import { readFile, stat } from 'node:fs/promises';
import { checkJsonShape, checkJsonTextDepth, formatLongPath, MAX_DOCUMENT_DEPTH } from '@weft/engine';
import { CliError } from './output.ts';

/** Thrown for a file that is not valid JSON; carries the 1-based line and column. */
export class JsonSyntaxError extends CliError {
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(what: string, detail: string, line?: number, column?: number) {
    super(`${what} is not valid JSON${line !== undefined ? ` (line ${line}, column ${column})` : ''}: ${detail}`);
    this.line = line;
    this.column = column;
  }
}

export function parseJson(text: string, what: string): unknown {
  // JSON.parse overflows the stack on deep enough text and names nothing: check first, iteratively.
  const tooDeep = checkJsonTextDepth(text, MAX_DOCUMENT_DEPTH);
  if (tooDeep) throw new CliError(`${what} is ${tooDeep.message}, at ${formatLongPath(tooDeep.path)}`);
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // V8: "Expected ',' or '}' after property value in JSON at position 42 (line 3 column 5)".
    const at = /\(line (\d+) column (\d+)\)/.exec(message);
    const position = /at position (\d+)/.exec(message);
    const detail = message
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/\s*in JSON at position \d+/, '')
      .replace(/,? "[^"]*" is not valid JSON$/, '');
    if (at) return fail(what, detail, Number(at[1]), Number(at[2]));
    if (position) {
      const { line, column } = lineColumn(text, Number(position[1]));
      return fail(what, detail, line, column);
    }
    if (/Unexpected end of JSON input/.test(message)) {
      const { line, column } = lineColumn(text, text.length);
      return fail(what, 'unexpected end of input', line, column);
    }
    return fail(what, detail);
  }
}

function fail(what: string, detail: string, line?: number, column?: number): never {
  throw new JsonSyntaxError(what, detail, line, column);
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

export async function readText(path: string, what: string, maxBytes?: number): Promise<string> {
  try {
    if (maxBytes !== undefined) {
      const size = (await stat(path)).size;
      if (size > maxBytes) {
        throw new CliError(`${what} ${path} is ${size} bytes; the limit is ${maxBytes} (WEFT_MAX_INPUT_BYTES)`);
      }
    }
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError(`${what} not found: ${path}`);
    if (code === 'EISDIR') throw new CliError(`${what} is a folder, not a file: ${path}`);
    throw new CliError(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
}

export async function readJsonFile(path: string, what: string, maxBytes?: number): Promise<unknown> {
  return parseJson(await readText(path, what, maxBytes), `${what} ${path}`);
}

/**
 * `--input '{"a":1}'` or `--input @file.json` (also a `--pin`'s value). A `"__proto__"` key is
 * refused, naming where: the run's schema and the store would drop it silently (as the API does).
 */
export async function readInputArg(value: string | undefined, maxBytes: number | undefined): Promise<unknown> {
  if (value === undefined) return {};
  const what = value.startsWith('@') ? `input file ${value.slice(1)}` : '--input';
  const parsed = value.startsWith('@')
    ? await readJsonFile(value.slice(1), 'input file', maxBytes)
    : parseJson(value, what);
  const refusal = protoKeyRefusal(parsed, what);
  if (refusal) throw new CliError(refusal);
  return parsed;
}

/** Why JSON given as `what` is refused: a `"__proto__"` key somewhere in it, named by path. */
export function protoKeyRefusal(parsed: unknown, what: string): string | undefined {
  const issue = checkJsonShape(parsed, Number.POSITIVE_INFINITY, { refuseProtoKeys: true });
  return issue && `${what}: ${formatLongPath(issue.path)}: "__proto__" keys are not allowed`;
}

/** Flow files may be TypeScript in the `weft` export shape: those are imported first. */
export function isTypeScriptFlow(path: string): boolean {
  return /\.(ts|mts)$/.test(path);
}

/** A flow document from JSON, or from TypeScript (errors as `file.ts:LINE:COL message`). */
export async function readFlowFile(path: string): Promise<unknown> {
  if (!isTypeScriptFlow(path)) return readJsonFile(path, 'flow file');
  const { importFlow } = await import('@weft/codegen');
  const result = importFlow(await readText(path, 'flow file'), path);
  if (result.ok) return result.flow;
  throw new CliError(`flow file ${path} cannot be imported:\n${formatImportErrors(path, result.errors)}`);
}

export function formatImportErrors(
  path: string,
  errors: readonly { line: number; column: number; message: string }[],
): string {
  return errors.map((error) => `${path}:${error.line}:${error.column} ${error.message}`).join('\n');
}
