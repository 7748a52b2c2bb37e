import { describe, expect, it } from 'vitest';
import { runHref } from '../run-view/permalink.ts';
import { hrefOf, parseFilters, parseRoute, queryOfFilters, type Route, resolveSince } from './route.ts';

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
      { screen: 'runs', filters: {} },
      {
        screen: 'runs',
        filters: { flow: 'x y', version: 1, status: ['running', 'waiting'], q: 'a&b=c', children: true },
      },
      { screen: 'runs', filters: { backend: ['inngest', 'temporal'], since: '7d', until: 5 } },
      { screen: 'run', runId: 'r1', at: 0 },
      { screen: 'run', runId: 'r/1', at: 9, step: 'each[3]/pick' },
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
