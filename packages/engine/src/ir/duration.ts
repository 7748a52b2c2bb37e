/** Durations in the IR are strings such as "250ms", "30s", "5m", "24h", "7d". */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

export const DURATION_HINT = 'a duration such as "500ms", "30s", "5m", "24h" or "7d"';

export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const [, amount, unit] = match;
  return Math.round(Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS]);
}

export function durationMs(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new Error(`"${text}" is not ${DURATION_HINT}`);
  return ms;
}
