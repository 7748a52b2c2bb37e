/**
 * The printed result: one row per measurement, the engine's number next to the raw baseline
 * measured in the same run, their difference and ratio, the target and whether it was met.
 * Targets are reported, never asserted: a miss prints MISS, it does not fail the script.
 */

export type Target =
  /** weft − raw must stay under `max` (in the row's unit). */
  | { kind: 'overhead'; max: number }
  /** weft / raw must stay at or under `max`. */
  | { kind: 'ratio'; max: number }
  /** weft itself must stay under `max` (in the row's unit). */
  | { kind: 'below'; max: number; unit?: string }
  /** weft itself must equal `value`. */
  | { kind: 'equals'; value: number };

export interface Row {
  id: string;
  what: string;
  unit: string;
  weft: number;
  raw?: number;
  /** weft / raw as measured in pairs (measure.ts samplePaired); else the ratio of the medians. */
  ratio?: number;
  target?: Target;
  /** Shown in the target column after the target, e.g. "(Mastra ~18 KB)". */
  targetNote?: string;
  /** Marks a row that could not be measured (e.g. PostgreSQL unreachable). */
  skipped?: string;
}

function fmt(value: number): string {
  if (!Number.isFinite(value)) return '—';
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function withUnit(value: number, unit: string): string {
  return unit === '' ? fmt(value) : `${fmt(value)} ${unit}`;
}

function describeTarget(target: Target | undefined, unit: string): string {
  if (!target) return '(report)';
  switch (target.kind) {
    case 'overhead':
      return `overhead < ${target.max} ${unit}`;
    case 'ratio':
      return `≤ ${target.max}× raw`;
    case 'below':
      return `< ${target.max} ${target.unit ?? unit}`;
    case 'equals':
      return `= ${target.value}`;
  }
}

function ratioOf(row: Row): number {
  return row.ratio ?? row.weft / (row.raw ?? Number.NaN);
}

function met(row: Row): boolean | undefined {
  const { target, weft, raw } = row;
  if (!target) return undefined;
  switch (target.kind) {
    case 'overhead':
      return raw !== undefined && weft - raw < target.max;
    case 'ratio':
      return raw !== undefined && ratioOf(row) <= target.max;
    case 'below':
      return weft < target.max;
    case 'equals':
      return weft === target.value;
  }
}

const HEAD = ['#', 'measurement', 'weft', 'raw baseline', 'overhead', 'ratio', 'target', 'verdict'] as const;

function cells(row: Row): string[] {
  if (row.skipped) return [row.id, row.what, '—', '—', '—', '—', describeTarget(row.target, row.unit), 'skipped'];
  const hasRaw = row.raw !== undefined;
  const verdict = met(row);
  return [
    row.id,
    row.what,
    withUnit(row.weft, row.unit),
    hasRaw ? withUnit(row.raw!, row.unit) : '—',
    hasRaw ? withUnit(row.weft - row.raw!, row.unit) : '—',
    hasRaw ? `${fmt(ratioOf(row))}×` : '—',
    [describeTarget(row.target, row.unit), row.targetNote].filter(Boolean).join(' '),
    verdict === undefined ? '—' : verdict ? 'ok' : 'MISS',
  ];
}

/** The table as text, columns padded; numbers right-aligned. */
export function renderTable(rows: readonly Row[]): string {
  const body = rows.map(cells);
  const widths = HEAD.map((head, col) => Math.max(head.length, ...body.map((line) => line[col]!.length)));
  const right = new Set([2, 3, 4, 5]);
  const line = (values: readonly string[]) =>
    values
      .map((value, col) => (right.has(col) ? value.padStart(widths[col]!) : value.padEnd(widths[col]!)))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('─┼─');
  return [line(HEAD), rule, ...body.map(line)].join('\n');
}

export function missed(rows: readonly Row[]): Row[] {
  return rows.filter((row) => !row.skipped && met(row) === false);
}
