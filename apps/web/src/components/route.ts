/** Hash routes: `#/` is the flow list, `#/flows/<id>` the editor. No router library needed for two screens. */
import { useSyncExternalStore } from 'react';

export type Route = { screen: 'list' } | { screen: 'editor'; flowId: string };

function parse(hash: string): Route {
  const match = /^#\/flows\/([^/]+)$/.exec(hash);
  return match?.[1] ? { screen: 'editor', flowId: decodeURIComponent(match[1]) } : { screen: 'list' };
}

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
};

export function useHash(): string {
  return useSyncExternalStore(subscribe, () => window.location.hash);
}

export function useRoute(): Route {
  return parse(useHash());
}

export function navigate(route: Route): void {
  window.location.hash = route.screen === 'list' ? '#/' : `#/flows/${encodeURIComponent(route.flowId)}`;
}
