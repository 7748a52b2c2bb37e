/**
 * bench/api.ts's table: a measured value next to a baseline from the same run, the target and
 * a verdict. Targets here are floors as well as ceilings ("at least 20,000 events/s"), which
 * lib/table.ts does not express. Targets are reported, never asserted.
 */

export interface ApiRow {
  id: string;
  what: string;
  unit: string;
  value: number;
  baseline?: number;
  baselineWhat?: string;
  target?: { atLeast: number } | { below: number };
}

function fmt(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  if (abs >= 1_000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function withUnit(value: number, unit: string): string {
  return unit === '' ? fmt(value) : `${fmt(value)} ${unit}`;
}

export function met(row: ApiRow): boolean | undefined {
  if (!row.target) return undefined;
  return 'atLeast' in row.target ? row.value >= row.target.atLeast : row.value < row.target.below;
}

function targetText(row: ApiRow): string {
  if (!row.target) return '(report)';
  return 'atLeast' in row.target
    ? `≥ ${withUnit(row.target.atLeast, row.unit)}`
    : `< ${withUnit(row.target.below, row.unit)}`;
}

const HEAD = ['#', 'measurement', 'weft', 'baseline (same run)', 'target', 'verdict'] as const;

export function renderApiTable(rows: readonly ApiRow[]): string {
  const body = rows.map((row) => {
    const verdict = met(row);
    return [
      row.id,
      row.what,
      withUnit(row.value, row.unit),
      row.baseline === undefined
        ? '—'
        : `${withUnit(row.baseline, row.unit)}${row.baselineWhat ? ` ${row.baselineWhat}` : ''}`,
      targetText(row),
      verdict === undefined ? '—' : verdict ? 'ok' : 'MISS',
    ];
  });
  const widths = HEAD.map((head, col) => Math.max(head.length, ...body.map((line) => line[col]!.length)));
  const right = new Set([2, 3]);
  const line = (values: readonly string[]) =>
    values
      .map((value, col) => (right.has(col) ? value.padStart(widths[col]!) : value.padEnd(widths[col]!)))
      .join(' │ ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('─┼─');
  return [line(HEAD), rule, ...body.map(line)].join('\n');
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}
