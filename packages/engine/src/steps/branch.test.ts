import { describe, expect, it } from 'vitest';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';

const route = testFlow([
  {
    id: 'route',
    type: 'branch',
    cases: [
      { when: "=input.priority == 'high'", steps: [{ id: 'page', type: 'transform', value: 'paged' }] },
      {
        when: "=input.priority == 'low'",
        steps: [
          { id: 'queue', type: 'transform', value: 'queued' },
          { id: 'note', type: 'transform', value: '{{ steps.queue.output }} for later' },
        ],
      },
    ],
    else: [{ id: 'ask', type: 'transform', value: 'asked' }],
  },
  { id: 'after', type: 'transform', value: { arm: '=steps.route.output' } },
]);

describe('branch schema', () => {
  it('accepts cases with an else arm', () => {
    expect(
      stepIssues({
        id: 'b',
        type: 'branch',
        cases: [{ when: '=true', steps: [] }],
        else: [{ id: 'x', type: 'transform', value: 1 }],
      }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['no cases', { cases: [] }, 'steps[0].cases', /a branch needs at least one case/],
    [
      'a when that is not an expression',
      { cases: [{ when: 'true', steps: [] }] },
      'steps[0].cases[0].when',
      /starting with "="/,
    ],
    ['a case without steps', { cases: [{ when: '=true' }] }, 'steps[0].cases[0].steps', /expected array/],
    [
      'a when that does not parse',
      { cases: [{ when: '=input ==', steps: [] }] },
      'steps[0].cases[0].when',
      /unexpected end/,
    ],
    [
      'an extra field on a case',
      { cases: [{ when: '=true', steps: [], do: [] }] },
      'steps[0].cases[0]',
      /Unrecognized key: "do"/,
    ],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'b', type: 'branch', cases: [{ when: '=true', steps: [] }], ...change });
    expect(issues).toContainEqual({ stepId: 'b', path, message: expect.stringMatching(message) });
  });
});

describe('branch handler', () => {
  it.each<[string, Json, string[], Json]>([
    ['the first case', { priority: 'high' }, ['route/page'], 'paged'],
    [
      'the second case, running its steps in order',
      { priority: 'low' },
      ['route/queue', 'route/note'],
      'queued for later',
    ],
    ['the else arm', { priority: 'normal' }, ['route/ask'], 'asked'],
  ])('runs %s under route/ ids and outputs its last output', async (_name, input, ids, output) => {
    const host = new MemoryHost();
    expect(await interpret(route, input, host)).toEqual({ arm: output });
    expect(eventTrail(host.events)).toEqual([
      'started:route',
      ...ids.flatMap((id) => [`started:${id}`, `completed:${id}`]),
      'completed:route',
      'started:after',
      'completed:after',
    ]);
  });

  it('records which arm ran as the step input and names the parent of its steps', async () => {
    const host = new MemoryHost();
    await interpret(route, { priority: 'low' }, host);
    expect(host.events[0]).toEqual({ type: 'step.started', stepId: 'route', stepType: 'branch', input: { arm: 1 } });
    expect(host.events[1]).toMatchObject({ stepId: 'route/queue', parentId: 'route' });
    const elseHost = new MemoryHost();
    await interpret(route, {}, elseHost);
    expect(elseHost.events[0]).toMatchObject({ input: { arm: 'else' } });
  });

  it('takes only the first of several true cases', async () => {
    const flow = testFlow([
      {
        id: 'b',
        type: 'branch',
        cases: [
          { when: '=input > 1', steps: [{ id: 'x', type: 'transform', value: 'first' }] },
          { when: '=input > 0', steps: [{ id: 'y', type: 'transform', value: 'second' }] },
        ],
      },
    ]);
    expect(await interpret(flow, 5, new MemoryHost())).toBe('first');
  });

  it('outputs null when no case holds and there is no else', async () => {
    const flow = testFlow([
      { id: 'b', type: 'branch', cases: [{ when: '=false', steps: [{ id: 'x', type: 'transform', value: 1 }] }] },
    ]);
    const host = new MemoryHost();
    expect(await interpret(flow, null, host)).toBeNull();
    expect(eventTrail(host.events)).toEqual(['started:b', 'completed:b']);
  });

  it('fails the branch step when a when cannot be evaluated', async () => {
    const flow = testFlow([{ id: 'b', type: 'branch', cases: [{ when: '=input.a.b', steps: [] }] }]);
    const host = new MemoryHost();
    await expect(interpret(flow, {}, host)).rejects.toMatchObject({ stepId: 'b' });
    expect(eventTrail(host.events)).toEqual(['started:b', 'failed:b']);
  });
});
