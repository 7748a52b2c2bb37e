/** How the runs screen writes times, durations, tokens and money: short, and never a guess. */

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.floor((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatTokens(tokens: { input: number; output: number } | null): string {
  return tokens ? `${formatCount(tokens.input)} → ${formatCount(tokens.output)}` : '—';
}

/** Dollars with enough digits to tell small costs apart (model turns are often fractions of a cent). */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toPrecision(2)}`;
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}

/**
 * A run's cost cell: its price, marked when some of its models had none (the sum leaves them out,
 * it does not count them as free), or "no price" when none of them had one.
 */
export function formatCost(costUsd: number | null, unpricedModels: readonly string[]): { text: string; title: string } {
  const missing = unpricedModels.length > 0 ? `no price for ${unpricedModels.join(', ')}` : '';
  if (costUsd === null) return missing ? { text: 'no price', title: missing } : { text: '—', title: 'no model turns' };
  if (missing) return { text: `${formatUsd(costUsd)} +?`, title: `${formatUsd(costUsd)}; ${missing}` };
  return { text: formatUsd(costUsd), title: costUsd === 0 ? 'mock and fixture turns cost nothing' : '' };
}

/** A start time: the time of day when it was today, else the date too. */
export function formatStart(at: number, now: number): string {
  const date = new Date(at);
  const today = new Date(now);
  const sameDay =
    date.getFullYear() === today.getFullYear() &&
    date.getMonth() === today.getMonth() &&
    date.getDate() === today.getDate();
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (sameDay) return time;
  const day = date.toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    ...(date.getFullYear() === today.getFullYear() ? {} : { year: 'numeric' }),
  });
  return `${day}, ${time}`;
}

/** A time for a `datetime-local` input (local time, minutes), and back. */
export function toLocalInput(at: number | undefined): string {
  if (at === undefined) return '';
  const date = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function fromLocalInput(value: string): number | undefined {
  if (!value) return undefined;
  const at = new Date(value).getTime();
  return Number.isNaN(at) ? undefined : at;
}
