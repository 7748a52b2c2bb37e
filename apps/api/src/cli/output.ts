/**
 * Small output helpers shared by the commands: colour (only on a TTY, honouring NO_COLOR and
 * FORCE_COLOR through `styleText`), durations, previews, tables, and scrubbing secrets from any
 * text that came from elsewhere (driver and provider errors).
 */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

export interface Writer {
  write(text: string): void;
  readonly isTTY: boolean;
  style(format: Style, text: string): string;
}

function writerFor(stream: NodeJS.WriteStream): Writer {
  return {
    write: (text) => {
      stream.write(terminalSafe(text));
    },
    get isTTY() {
      return stream.isTTY === true;
    },
    style: (format, text) => styleText(format, text, { stream }),
  };
}

export const stdout = writerFor(process.stdout);
export const stderr = writerFor(process.stderr);

// Colour and weight codes (`styleText` writes these): harmless wherever they come from.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the escape character is the point
const SGR_ALLOWED = /^\u001b\[(?:0|1|2|22|3[0-7]|39|9[0-7])m$/;
// ESC sequences (CSI … final byte, OSC … BEL/ST, other two-byte escapes), then lone controls:
// C0 except tab and newline (a carriage return can overwrite a line), DEL, and C1.
const UNSAFE = new RegExp(
  [
    '\\u001b(?:\\[[0-?]*[ -/]*[@-~]|\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?|[@-Z\\\\-_])?',
    '\\u009b[0-?]*[ -/]*[@-~]',
    '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]',
  ].join('|'),
  'g',
);

/**
 * What the CLI prints may hold text from a flow (step names, outputs, errors): terminal escape
 * sequences in it could move the cursor, rewrite lines, set the window title or the clipboard.
 * Everything but plain colour codes is dropped on the way out.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (sequence) => (SGR_ALLOWED.test(sequence) ? sequence : ''));
}

/** A usage mistake: unknown flag, missing argument. Exit 64 (EX_USAGE) with the command's usage. */
export class UsageError extends Error {
  readonly usage: string | undefined;
  constructor(message: string, usage?: string) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}

/** An expected failure the command already explains in `message`: printed as is, exit `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

export const EXIT = { ok: 0, failed: 1, parked: 2, usage: 64, interrupted: 130 } as const;

/** Env values that must never be printed, even inside an error that came from a driver or provider. */
const SECRET_ENV = [
  'DATABASE_URL',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'WEFT_LOCAL_API_KEY',
  'INNGEST_EVENT_KEY',
  'INNGEST_SIGNING_KEY',
];

export function redact(text: string, env: Record<string, string | undefined> = process.env): string {
  let out = text;
  for (const name of SECRET_ENV) {
    const value = env[name];
    if (value && value.length >= 4) out = out.split(value).join(`<${name}>`);
  }
  // Credentials inside any URL: scheme://user:password@host.
  return out.replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^@\s/]+@/gi, '$1:***@');
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  if (minutes < 60) return `${minutes}m${String(seconds).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** "2026-01-05 14:03:22" in local time. */
export function formatDateTime(at: number | null | undefined): string {
  if (at === null || at === undefined) return '—';
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatTime(at, false)}`;
}

/** "14:03:22.417" in local time. */
export function formatTime(at: number, millis = true): string {
  const d = new Date(at);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const base = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return millis ? `${base}.${pad(d.getMilliseconds(), 3)}` : base;
}

/** One line, at most `max` characters: strings as they are, anything else as compact JSON. */
export function preview(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  const line = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Aligned columns; the last column is not padded. */
export function table(headers: string[], rows: string[][], style?: (text: string) => string): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => visibleLength(row[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleLength(cell))))
      .join('  ')
      .trimEnd();
  const head = line(headers);
  return `${[style ? style(head) : head, ...rows.map(line)].join('\n')}\n`;
}

function visibleLength(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** Writes one JSON document as one line (so `--json` output is the last line of stdout). */
export function printJsonLine(value: unknown): void {
  stdout.write(`${JSON.stringify(value)}\n`);
}

/** Resolves once everything written to stdout and stderr has been handed to the OS. */
export function drain(): Promise<void> {
  return Promise.all([
    new Promise<void>((resolve) => process.stdout.write('', () => resolve())),
    new Promise<void>((resolve) => process.stderr.write('', () => resolve())),
  ]).then(() => undefined);
}
