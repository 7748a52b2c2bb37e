/**
 * bench/backends' report: the table (every Weft row with its ratio to the native program of the
 * same engine, its target, and its ratio to in-process), the machine line with the load average
 * at start and end (a run above LOADED marked), and what `--check` asserts.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { DatabaseSync } from 'node:sqlite';

/** A 1-minute load average above this (at start or end) marks the run: its wall times are inflated. */
export const LOADED = 1.5;
/** `--check` fails a ratio above its target by more than this factor. */
export const CHECK_SLACK = 1.25;

export interface ResultRow {
  scenario: string;
  backend: string;
  runsMs: number[];
  medianMs: number;
  units: number;
  unit: 'step' | 'turn';
  /** Weft rows: Weft per unit / native per unit, on the same engine. */
  vsNative?: number;
  /** The target for vsNative (absent: reported only). */
  target?: number;
  /** External Weft rows: per unit / in-process (SQLite) per unit. */
  vsInProcess?: number;
}

export function fmt(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1_000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function targetCell(row: ResultRow): string {
  if (row.target === undefined || row.vsNative === undefined) return '';
  const mark = row.vsNative <= row.target ? '✓' : row.vsNative <= row.target * CHECK_SLACK ? '✗' : '✗✗';
  return `≤ ${row.target}× ${mark}`;
}

export function renderTable(rows: readonly ResultRow[]): string {
  const head = [
    'scenario',
    'backend',
    'runs',
    'total ms (median)',
    'µs per step',
    'weft / native',
    'target',
    '/ in-process',
  ];
  const body = rows.map((row) => [
    row.scenario,
    row.backend,
    String(row.runsMs.length),
    fmt(row.medianMs),
    `${fmt((row.medianMs * 1000) / row.units)} /${row.unit}`,
    row.vsNative === undefined ? '' : `${fmt(row.vsNative)}×`,
    targetCell(row),
    row.vsInProcess === undefined ? '' : `${fmt(row.vsInProcess)}×`,
  ]);
  const widths = head.map((title, col) => Math.max(title.length, ...body.map((line) => line[col]!.length)));
  const right = new Set([2, 3, 4, 5, 7]);
  const line = (values: readonly string[]) =>
    values
      .map((value, col) => (right.has(col) ? value.padStart(widths[col]!) : value.padEnd(widths[col]!)))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('─┼─');
  return [line(head), rule, ...body.map(line)].join('\n');
}

export function machine(loadAtStart: readonly number[], versions: readonly string[]): string {
  const cpu = cpus();
  const sqlite = new DatabaseSync(':memory:');
  const sqliteVersion = String(sqlite.prepare('select sqlite_version() as v').get()?.v ?? '?');
  sqlite.close();
  const loadAtEnd = loadavg();
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const loaded = Math.max(loadAtStart[0] ?? 0, loadAtEnd[0] ?? 0) > LOADED;
  return [
    `machine: ${cpu.length} CPU × ${cpu[0]?.model.trim() ?? 'unknown'}, ${process.platform}/${process.arch}; ` +
      `load average ${load(loadAtStart)} at start, ${load(loadAtEnd)} at end` +
      (loaded
        ? ` — LOADED RUN (1-min load above ${LOADED}): other work on the machine inflated these wall times`
        : ' (other work on the machine inflates wall times)'),
    `node ${process.version}, SQLite ${sqliteVersion} (node:sqlite, temp dir ${tmpdir()}); ${versions.join('; ')} ` +
      '(real dev servers on loopback, in-memory persistence; workers / served functions in this process)',
  ].join('\n');
}

/** The rows whose ratio exceeds its target by more than CHECK_SLACK, as lines. */
export function checkFailures(rows: readonly ResultRow[]): string[] {
  return rows
    .filter((row) => row.target !== undefined && row.vsNative !== undefined && row.vsNative > row.target * CHECK_SLACK)
    .map(
      (row) =>
        `${row.scenario} on ${row.backend}: ${fmt(row.vsNative!)}× native, target ≤ ${row.target}× (+${Math.round((CHECK_SLACK - 1) * 100)}% = ${fmt(row.target! * CHECK_SLACK)}×)`,
    );
}
