/**
 * Hash routes. No router library needed for so few screens:
 * - `#/` the flow list;
 * - `#/flows/<id>?view=<x>,<y>,<zoom>` the editor, at a viewport when `view` is given (else the
 *   one remembered for the flow, else the whole flow fitted); `#/flows/<id>/runs/<runId>` the
 *   editor showing one run (kept: older links and the editor's own run list use it);
 * - `#/runs?flow=&version=&status=&backend=&since=&until=&q=&children=` every run, filtered — the
 *   filters live in the address so a filtered list can be shared and survives a reload;
 * - `#/runs/<runId>?at=<seq>&step=<stepId>` the run view (a permalink: run, scrubbed event,
 *   selected step);
 * - `#/chat/<flowId>` a new conversation with a flow, `#/chat/<flowId>/<chatId>` one conversation.
 *
 * An address whose names cannot be decoded (`#/runs/%E0%A4%A`: a cut percent-escape, typed or
 * pasted) is the `not-found` screen with the reason, never an exception: a throw here would blank
 * the whole app, since every screen reads the route.
 *
 * `hrefOf` is the one place these addresses are written; link to screens through it.
 */
import { RUN_STATUSES, type RunStatus } from '@weft/engine';
import { useSyncExternalStore } from 'react';

/**
 * The runs screen's filters as the address holds them. `since` / `until` are ms since the epoch,
 * or (`since` only) a span back from now such as `24h`, `7d`, `30m` — so "the last day" stays the
 * last day when the link is opened tomorrow.
 */
export interface RunFilters {
  flow?: string | undefined;
  version?: number | undefined;
  status?: RunStatus[] | undefined;
  backend?: string[] | undefined;
  since?: number | string | undefined;
  until?: number | undefined;
  q?: string | undefined;
  /**
   * List child runs too (started by a `spawn` step or a flow tool). By default the list holds the
   * runs people started, as the API does; a child is one click away in its parent's run view.
   */
  children?: boolean | undefined;
}

/** The canvas's pan (x, y: where the flow's origin is on screen, px) and zoom. */
export interface CanvasView {
  x: number;
  y: number;
  zoom: number;
}

export type Route =
  | { screen: 'list' }
  | { screen: 'editor'; flowId: string; runId?: string | undefined; view?: CanvasView | undefined }
  | { screen: 'runs'; filters: RunFilters }
  | { screen: 'run'; runId: string; at?: number | undefined; step?: string | undefined }
  | { screen: 'chat'; flowId: string; chatId?: string | undefined }
  | { screen: 'not-found'; hash: string; reason: string };

const RELATIVE = /^(\d{1,6})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `since` as ms since the epoch, a relative span resolved against `now`. */
export function resolveSince(since: number | string | undefined, now: number): number | undefined {
  if (since === undefined || typeof since === 'number') return since;
  const match = RELATIVE.exec(since);
  return match ? now - Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
}

function timeParam(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An ISO date typed by hand into the address.
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

function listParam(value: string | null): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length > 0 ? [...new Set(items)] : undefined;
}

export function parseFilters(query: string): RunFilters {
  const params = new URLSearchParams(query);
  const filters: RunFilters = {};
  const flow = params.get('flow')?.trim();
  if (flow) filters.flow = flow;
  const version = Number(params.get('version'));
  if (filters.flow && Number.isInteger(version) && version > 0) filters.version = version;
  // Unknown statuses are dropped rather than sent (the API would refuse the whole query).
  const status = listParam(params.get('status'))?.filter((item): item is RunStatus =>
    (RUN_STATUSES as readonly string[]).includes(item),
  );
  if (status && status.length > 0) filters.status = status;
  const backend = listParam(params.get('backend'));
  if (backend) filters.backend = backend;
  const since = params.get('since');
  if (since && RELATIVE.test(since)) filters.since = since;
  else if (timeParam(since) !== undefined) filters.since = timeParam(since);
  const until = timeParam(params.get('until'));
  if (until !== undefined) filters.until = until;
  const q = params.get('q')?.trim();
  if (q) filters.q = q;
  if (params.get('children') === '1') filters.children = true;
  return filters;
}

/** The query string of `filters` (no leading `?`), in a fixed order so equal filters give equal addresses. */
export function queryOfFilters(filters: RunFilters): string {
  const params = new URLSearchParams();
  if (filters.flow) params.set('flow', filters.flow);
  if (filters.flow && filters.version !== undefined) params.set('version', String(filters.version));
  if (filters.status && filters.status.length > 0) params.set('status', filters.status.join(','));
  if (filters.backend && filters.backend.length > 0) params.set('backend', filters.backend.join(','));
  if (filters.since !== undefined) params.set('since', String(filters.since));
  if (filters.until !== undefined) params.set('until', String(filters.until));
  if (filters.q?.trim()) params.set('q', filters.q.trim());
  if (filters.children) params.set('children', '1');
  return params.toString();
}

/** A name from the address, or undefined when its percent-escapes are malformed (`%E0%A4%A`). */
export function decodeName(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

class UndecodableAddress extends Error {}

function nameOf(encoded: string, what: string): string {
  const name = decodeName(encoded);
  if (name === undefined) throw new UndecodableAddress(`the ${what} “${encoded}” is not valid percent-encoding`);
  return name;
}

export function parseRoute(hash: string): Route {
  try {
    return parseKnownRoute(hash);
  } catch (error) {
    if (!(error instanceof UndecodableAddress)) throw error;
    return { screen: 'not-found', hash, reason: error.message };
  }
}

function parseKnownRoute(hash: string): Route {
  const runs = /^#\/runs(?:\/([^/?]+))?\/?(?:\?(.*))?$/.exec(hash);
  if (runs) {
    const query = runs[2] ?? '';
    if (!runs[1]) return { screen: 'runs', filters: parseFilters(query) };
    const params = new URLSearchParams(query);
    const route: Route = { screen: 'run', runId: nameOf(runs[1], 'run id') };
    const at = params.get('at');
    if (at && /^\d+$/.test(at)) route.at = Number(at);
    const step = params.get('step');
    if (step) route.step = step;
    return route;
  }
  const chat = /^#\/chat\/([^/?]+)(?:\/([^/?]+))?\/?$/.exec(hash);
  if (chat?.[1]) {
    const flowId = nameOf(chat[1], 'flow id');
    return chat[2] ? { screen: 'chat', flowId, chatId: nameOf(chat[2], 'chat id') } : { screen: 'chat', flowId };
  }
  const match = /^#\/flows\/([^/?]+)(?:\/runs\/([^/?]+))?\/?(?:\?(.*))?$/.exec(hash);
  if (!match?.[1]) return { screen: 'list' };
  const flowId = nameOf(match[1], 'flow id');
  if (match[2]) return { screen: 'editor', flowId, runId: nameOf(match[2], 'run id') };
  const view = parseView(new URLSearchParams(match[3] ?? '').get('view'));
  return view ? { screen: 'editor', flowId, view } : { screen: 'editor', flowId };
}

/** The zoom range the canvas allows (Canvas.tsx); a view outside it is clamped, not refused. */
export const MIN_ZOOM = 0.01;
export const MAX_ZOOM = 4;

/** `<x>,<y>,<zoom>` (finite numbers, zoom > 0), or undefined for anything else. */
export function parseView(value: string | null | undefined): CanvasView | undefined {
  const parts = (value ?? '').split(',');
  if (parts.length !== 3 || parts.some((part) => part.trim() === '')) return undefined;
  const [x, y, zoom] = parts.map(Number) as [number, number, number];
  if (![x, y, zoom].every(Number.isFinite) || zoom <= 0) return undefined;
  return { x, y, zoom: Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom)) };
}

/** A view as the address writes it: whole pixels, zoom to 3 decimals (short, and stable while still). */
export function formatView(view: CanvasView): string {
  const zoom = Math.round(view.zoom * 1000) / 1000;
  return `${Math.round(view.x)},${Math.round(view.y)},${zoom}`;
}

// `replaceRoute` changes the address without a hashchange event; it announces itself with this one.
const REPLACED = 'weft:route-replaced';

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange);
  window.addEventListener(REPLACED, onChange);
  return () => {
    window.removeEventListener('hashchange', onChange);
    window.removeEventListener(REPLACED, onChange);
  };
};

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => window.location.hash);
}

export function useRoute(): Route {
  return parseRoute(useHash());
}

export function hrefOf(route: Route): string {
  switch (route.screen) {
    case 'list':
      return '#/';
    case 'editor': {
      const base = `#/flows/${encodeURIComponent(route.flowId)}`;
      if (route.runId) return `${base}/runs/${encodeURIComponent(route.runId)}`;
      return route.view ? `${base}?view=${formatView(route.view)}` : base;
    }
    case 'runs': {
      const query = queryOfFilters(route.filters);
      return query ? `#/runs?${query}` : '#/runs';
    }
    case 'run': {
      // The same address the run view writes as the user scrubs (run-view/permalink.ts).
      const query: string[] = [];
      if (route.at !== undefined) query.push(`at=${encodeURIComponent(String(route.at))}`);
      if (route.step) query.push(`step=${encodeURIComponent(route.step)}`);
      return `#/runs/${encodeURIComponent(route.runId)}${query.length > 0 ? `?${query.join('&')}` : ''}`;
    }
    case 'chat': {
      const base = `#/chat/${encodeURIComponent(route.flowId)}`;
      return route.chatId ? `${base}/${encodeURIComponent(route.chatId)}` : base;
    }
    case 'not-found':
      return route.hash;
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route);
}

/**
 * Goes to `route` in place of the current history entry (a filter typed into the runs screen is
 * not a page the back button should step through), and tells `useRoute` readers.
 */
export function replaceRoute(route: Route): void {
  const href = hrefOf(route);
  if (window.location.hash === href) return;
  history.replaceState(history.state, '', href);
  window.dispatchEvent(new Event(REPLACED));
}
