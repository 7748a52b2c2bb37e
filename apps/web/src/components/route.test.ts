import { describe, expect, it } from 'vitest';
import { runHref } from '../run-view/permalink.ts';
import {
  decodeName,
  hrefOf,
  parseFilters,
  parseRoute,
  parseView,
  queryOfFilters,
  type Route,
  resolveSince,
} from './route.ts';

describe('the runs routes', () => {
  it('reads the runs screen with its filters', () => {
    expect(parseRoute('#/runs')).toEqual({ screen: 'runs', filters: {} });
    expect(parseRoute('#/runs?')).toEqual({ screen: 'runs', filters: {} });
    expect(
      parseRoute(
        '#/runs?flow=research-agent&version=2&status=failed,completed&backend=temporal&since=24h&until=1700000000000&q=solar%20gw&children=1',
      ),
    ).toEqual({
      screen: 'runs',
      filters: {
        flow: 'research-agent',
        version: 2,
        status: ['failed', 'completed'],
        backend: ['temporal'],
        since: '24h',
        until: 1_700_000_000_000,
        q: 'solar gw',
        children: true,
      },
    });
  });

  it('drops what it cannot use instead of sending it to the API', () => {
    // A version without a flow means nothing; unknown statuses and junk times are left out.
    expect(parseFilters('version=3&status=bogus,failed,failed&since=yesterday-ish&until=&q=%20%20')).toEqual({
      status: ['failed'],
    });
    expect(parseFilters('flow=a&version=0')).toEqual({ flow: 'a' });
    expect(parseFilters('since=2024-05-01T00:00:00Z')).toEqual({ since: Date.parse('2024-05-01T00:00:00Z') });
  });

  it('reads a run permalink', () => {
    expect(parseRoute('#/runs/r1')).toEqual({ screen: 'run', runId: 'r1' });
    expect(parseRoute('#/runs/a%20b?at=42&step=agent%2Fllm%232')).toEqual({
      screen: 'run',
      runId: 'a b',
      at: 42,
      step: 'agent/llm#2',
    });
    expect(parseRoute('#/runs/r1?at=-1&step=')).toEqual({ screen: 'run', runId: 'r1' });
  });

  it('reads the chat routes', () => {
    expect(parseRoute('#/chat/research-agent')).toEqual({ screen: 'chat', flowId: 'research-agent' });
    expect(parseRoute('#/chat/research-agent/')).toEqual({ screen: 'chat', flowId: 'research-agent' });
    expect(parseRoute('#/chat/research-agent/c%201')).toEqual({
      screen: 'chat',
      flowId: 'research-agent',
      chatId: 'c 1',
    });
    expect(parseRoute('#/chat/')).toEqual({ screen: 'list' });
    expect(parseRoute('#/chat/a/b/c')).toEqual({ screen: 'list' });
    expect(hrefOf({ screen: 'chat', flowId: 'a b', chatId: 'x/y' })).toBe('#/chat/a%20b/x%2Fy');
  });

  it('reads the canvas viewport of the editor address', () => {
    expect(parseRoute('#/flows/f?view=-120,40.5,0.25')).toEqual({
      screen: 'editor',
      flowId: 'f',
      view: { x: -120, y: 40.5, zoom: 0.25 },
    });
    // Anything not three finite numbers with a positive zoom is no view: the flow opens as usual.
    for (const bad of ['1,2', '1,2,0', '1,2,-1', 'a,b,c', '1,,1', '1,2,3,4', '', 'Infinity,0,1'])
      expect(parseRoute(`#/flows/f?view=${bad}`)).toEqual({ screen: 'editor', flowId: 'f' });
    // A zoom beyond the canvas's range is clamped to it.
    expect(parseView('0,0,100')).toEqual({ x: 0, y: 0, zoom: 4 });
    expect(parseRoute('#/flows/a%3Fb?view=1,2,1')).toEqual({
      screen: 'editor',
      flowId: 'a?b',
      view: { x: 1, y: 2, zoom: 1 },
    });
    expect(hrefOf({ screen: 'editor', flowId: 'f', view: { x: 10.4, y: -3.6, zoom: 0.12345 } })).toBe(
      '#/flows/f?view=10,-4,0.123',
    );
  });

  it('keeps the older routes', () => {
    expect(parseRoute('')).toEqual({ screen: 'list' });
    expect(parseRoute('#/flows/a-b/runs/r1')).toEqual({ screen: 'editor', flowId: 'a-b', runId: 'r1' });
    expect(parseRoute('#/nowhere')).toEqual({ screen: 'list' });
  });

  it('writes what it reads', () => {
    const routes: Route[] = [
      { screen: 'list' },
      { screen: 'editor', flowId: 'f' },
      { screen: 'editor', flowId: 'f', runId: 'r 1' },
      { screen: 'editor', flowId: 'f g', view: { x: -10, y: 20, zoom: 1.5 } },
      { screen: 'runs', filters: {} },
      {
        screen: 'runs',
        filters: { flow: 'x y', version: 1, status: ['running', 'waiting'], q: 'a&b=c', children: true },
      },
      { screen: 'runs', filters: { backend: ['inngest', 'temporal'], since: '7d', until: 5 } },
      { screen: 'run', runId: 'r1', at: 0 },
      { screen: 'run', runId: 'r/1', at: 9, step: 'each[3]/pick' },
      { screen: 'chat', flowId: 'f' },
      { screen: 'chat', flowId: 'f g', chatId: 'c/1' },
    ];
    for (const route of routes) expect(parseRoute(hrefOf(route))).toEqual(route);
  });

  it('writes the same permalink as the run view', () => {
    for (const link of [{ runId: 'r1' }, { runId: 'r1', at: 42, step: 'agent/llm#2' }, { runId: 'a b', at: 0 }])
      expect(hrefOf({ screen: 'run', ...link })).toBe(runHref(link));
  });

  it('writes filters in a fixed order, leaving out empty ones', () => {
    expect(queryOfFilters({ q: 'x', flow: 'f', status: [], backend: [] })).toBe('flow=f&q=x');
    expect(hrefOf({ screen: 'runs', filters: { version: 2 } })).toBe('#/runs');
    expect(hrefOf({ screen: 'runs', filters: { flow: 'f' } })).toBe('#/runs?flow=f');
  });

  it('resolves a relative start time against now', () => {
    const now = 10 * 86_400_000;
    expect(resolveSince('24h', now)).toBe(now - 86_400_000);
    expect(resolveSince('30m', now)).toBe(now - 1_800_000);
    expect(resolveSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(resolveSince(123, now)).toBe(123);
    expect(resolveSince(undefined, now)).toBeUndefined();
  });
});

describe('an address with malformed percent-encoding', () => {
  it('is the not-found screen with the reason, not an exception', () => {
    // `decodeURIComponent('%E0%A4%A')` throws URIError: read by every screen, it blanked the app.
    for (const [hash, what, name] of [
      ['#/runs/%E0%A4%A', 'run id', '%E0%A4%A'],
      ['#/runs/%E0%A4%A?at=3', 'run id', '%E0%A4%A'],
      ['#/flows/%', 'flow id', '%'],
      ['#/flows/ok/runs/%ZZ', 'run id', '%ZZ'],
      ['#/chat/%E0', 'flow id', '%E0'],
      ['#/chat/f/%E0%A4', 'chat id', '%E0%A4'],
    ] as const) {
      expect(parseRoute(hash), hash).toEqual({
        screen: 'not-found',
        hash,
        reason: `the ${what} “${name}” is not valid percent-encoding`,
      });
    }
  });

  it('links back to itself, and well-formed escapes still decode', () => {
    expect(hrefOf(parseRoute('#/runs/%E0%A4%A'))).toBe('#/runs/%E0%A4%A');
    expect(parseRoute('#/runs/%E0%A4%A4')).toEqual({ screen: 'run', runId: '\u0924' });
    expect(decodeName('%E0%A4%A')).toBeUndefined();
    expect(decodeName('a%20b')).toBe('a b');
  });
});
