/**
 * Hash routes: `#/` is the flow list, `#/flows/<id>` the editor, `#/flows/<id>/runs/<runId>` the
 * editor showing one run (its flow version's graph with the run's live or replayed statuses).
 * No router library needed for so few screens.
 */
import { useSyncExternalStore } from 'react';

export type Route = { screen: 'list' } | { screen: 'editor'; flowId: string; runId?: string | undefined };

export function parseRoute(hash: string): Route {
  const match = /^#\/flows\/([^/]+)(?:\/runs\/([^/]+))?$/.exec(hash);
  if (!match?.[1]) return { screen: 'list' };
  const flowId = decodeURIComponent(match[1]);
  return match[2] ? { screen: 'editor', flowId, runId: decodeURIComponent(match[2]) } : { screen: 'editor', flowId };
}

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
};

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => window.location.hash);
}

export function useRoute(): Route {
  return parseRoute(useHash());
}

export function hrefOf(route: Route): string {
  if (route.screen === 'list') return '#/';
  const base = `#/flows/${encodeURIComponent(route.flowId)}`;
  return route.runId ? `${base}/runs/${encodeURIComponent(route.runId)}` : base;
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route);
}
