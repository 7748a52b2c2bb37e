/**
 * The timeline per shape of run. Events come from the real interpreter driven by a host on a
 * virtual clock (calls take the time a test gives them, approvals wait, retries back off as the
 * in-process runner does), so a row's segments are exact milliseconds from the run's start.
 */
import { describe, expect, it } from 'vitest';
import type { Flow } from '../ir/flow.ts';
import { ClockHost, type HostOptions, record, runFlow, T0, VirtualClock } from '../test-support/clock-host.ts';
import { testFlow } from '../test-support/flows.ts';
import type { RunEvent, RunEventInput } from './events.ts';
import { barAt, eventIndexAt, nestTimeline, RUN_BAR_ID, type TimelineBar, timelineOf } from './timeline.ts';

/** One line per bar: indent, label, kind, status, then each segment with ms offsets from the run's start. */
function rows(bars: readonly TimelineBar[]): string[] {
  return bars.map((bar) => {
    const segments = bar.segments.map((segment) => {
      const name =
        segment.kind === 'wait'
          ? `wait:${segment.reason}`
          : segment.kind === 'retry'
            ? `retry#${segment.attempt}(${segment.error.message})`
            : 'work';
      return `${name} ${segment.start - T0}-${segment.end === null ? '…' : segment.end - T0}`;
    });
    return `${'  '.repeat(bar.depth)}${bar.label} [${bar.kind}] ${bar.status}: ${segments.join(', ')}`;
  });
}

const agentFixtures = {
  agent: [
    {
      toolCalls: [
        { tool: 'search', args: { q: 'a' } },
        { tool: 'search', args: { q: 'b' } },
      ],
    },
    { text: 'done' },
  ],
};

interface Shape {
  name: string;
  flow: Flow;
  options?: HostOptions;
  expected: string[];
}

const shapes: Shape[] = [
  {
    name: 'sequential',
    flow: testFlow(
      [
        { id: 'fetch', type: 'tool', tool: 'lookup', args: {} },
        { id: 'nap', type: 'sleep', duration: '50ms' },
        { id: 'shape', type: 'transform', value: '=1' },
      ],
      {},
      { hostTools: ['lookup'] },
    ),
    options: { tools: { lookup: () => 1 }, durations: { fetch: 20 } },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-73',
      'fetch [step] completed: work 3-23',
      'nap [sleep] completed: wait:sleep 23-73',
      'shape [step] completed: work 73-73',
    ],
  },
  {
    name: 'parallel',
    flow: testFlow(
      [
        {
          id: 'fan',
          type: 'parallel',
          branches: {
            a: [{ id: 'slow', type: 'tool', tool: 'lookup', args: {} }],
            b: [
              { id: 'one', type: 'tool', tool: 'lookup', args: {} },
              { id: 'two', type: 'tool', tool: 'lookup', args: {} },
            ],
          },
        },
      ],
      {},
      { hostTools: ['lookup'] },
    ),
    options: { tools: { lookup: () => 1 }, durations: { 'fan.a/slow': 30 } },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-33',
      'fan [step] completed: work 3-33',
      '  a/slow [step] completed: work 3-33',
      '  b/one [step] completed: work 3-13',
      '  b/two [step] completed: work 13-23',
    ],
  },
  {
    name: 'map with concurrency',
    flow: testFlow(
      [
        {
          id: 'each',
          type: 'map',
          items: '=[1, 2, 3]',
          concurrency: 2,
          steps: [{ id: 'work', type: 'tool', tool: 'lookup', args: {} }],
        },
      ],
      {},
      { hostTools: ['lookup'] },
    ),
    options: { tools: { lookup: () => 1 }, durations: { 'each[0]/work': 30 } },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-33',
      'each [step] completed: work 3-33',
      '  item 0 [map-item] completed: work 3-33',
      '    work [step] completed: work 3-33',
      '  item 1 [map-item] completed: work 3-13',
      '    work [step] completed: work 3-13',
      // Two at a time: item 2 queues until item 1 frees a worker.
      '  item 2 [map-item] completed: wait:queued 3-13, work 13-23',
      '    work [step] completed: work 13-23',
    ],
  },
  {
    name: 'loop',
    flow: testFlow(
      [
        {
          id: 'again',
          type: 'loop',
          while: '=iteration < 2',
          steps: [{ id: 'poll', type: 'tool', tool: 'lookup', args: {} }],
        },
      ],
      {},
      { hostTools: ['lookup'] },
    ),
    options: { tools: { lookup: () => 1 } },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-23',
      'again [step] completed: work 3-23',
      '  iteration 0 [loop-iteration] completed: work 3-13',
      '    poll [step] completed: work 3-13',
      '  iteration 1 [loop-iteration] completed: work 13-23',
      '    poll [step] completed: work 13-23',
    ],
  },
  {
    name: 'agent loop with retries',
    flow: testFlow(
      [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'go', tools: ['search'], maxSteps: 3 }],
      {},
      { hostTools: ['search'] },
    ),
    options: {
      tools: { search: () => 'found' },
      fixtures: agentFixtures,
      // The first model turn fails twice (backoff 1 s, then 2 s); the second tool call takes longer.
      failures: { 'agent/llm#1': ['rate limited', 'overloaded'] },
      durations: { 'agent/tool#1.1': 40 },
    },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-3083',
      'agent [step] completed: work 3-3083',
      '  turn 1 [model-turn] completed: retry#1(rate limited) 3-13, wait:backoff 13-1013, retry#2(overloaded) 1013-1023, wait:backoff 1023-3023, work 3023-3033',
      '  search (call 1.0) [tool-call] completed: work 3033-3043',
      '  search (call 1.1) [tool-call] completed: work 3033-3073',
      '  turn 2 [model-turn] completed: work 3073-3083',
    ],
  },
  {
    name: 'approval wait',
    flow: testFlow([
      { id: 'ok', type: 'approval', prompt: 'Ship it?' },
      { id: 'after', type: 'transform', value: '=1' },
    ]),
    options: { approvalMs: 500 },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-503',
      'ok [approval] completed: work 3-3, wait:approval 3-503, work 503-503',
      'after [step] completed: work 503-503',
    ],
  },
  {
    name: 'child run',
    flow: testFlow([{ id: 'sub', type: 'spawn', flow: 'child', input: {} }]),
    options: {
      children: {
        child: testFlow(
          [{ id: 'inner', type: 'tool', tool: 'lookup', args: {} }],
          { id: 'child' },
          { hostTools: ['lookup'] },
        ),
      },
      tools: { lookup: () => 1 },
    },
    expected: [
      'test-flow [run] completed: wait:queued 0-3, work 3-21',
      'sub [step] completed: work 3-3, wait:child 3-21',
      '  child run · child [child-run] completed: work 3-21',
    ],
  },
];

describe('timelineOf: one row per checkpoint, per shape of run', () => {
  it.each(shapes)('$name', async ({ flow, options, expected }) => {
    const logs = await record(flow, options);
    expect(rows(timelineOf(logs.get('r1')!))).toEqual(expected);
  });
});

describe('timelineOf: details', () => {
  it('links a child run and nests its own timeline, its queueing on the child bar', async () => {
    const shape = shapes.find((candidate) => candidate.name === 'child run')!;
    const logs = await record(shape.flow, shape.options);
    const bars = timelineOf(logs.get('r1')!);
    const child = bars.find((bar) => bar.kind === 'child-run')!;
    expect(child).toMatchObject({ id: 'child:r1.sub', stepId: 'sub', parentId: 'sub', childRunId: 'r1.sub' });
    expect(bars.find((bar) => bar.id === 'sub')!.childRunId).toBe('r1.sub');
    const nested = nestTimeline(bars, child.id, timelineOf(logs.get('r1.sub')!));
    expect(rows(nested)).toEqual([
      'test-flow [run] completed: wait:queued 0-3, work 3-21',
      'sub [step] completed: work 3-3, wait:child 3-21',
      '  child run · child [child-run] completed: wait:queued 8-11, work 11-21',
      '    inner [step] completed: work 11-21',
    ]);
    expect(nested.at(-1)).toMatchObject({
      id: 'child:r1.sub>inner',
      stepId: 'inner',
      parentId: 'child:r1.sub',
      runId: 'r1.sub',
    });
  });

  it('leaves bars open while the run waits, and says what they wait for', async () => {
    const clock = new VirtualClock();
    const logs = new Map<string, RunEvent[]>();
    const host = new ClockHost(clock, 'r1', {}, logs);
    host.waitForApproval = () => new Promise(() => undefined); // nobody decides
    const flow = testFlow([{ id: 'ok', type: 'approval', prompt: 'Ship it?' }]);
    void runFlow(host, flow, null);
    await clock.run(clock.sleep(100));
    const bars = timelineOf(logs.get('r1')!);
    expect(bars.find((bar) => bar.id === 'ok')).toMatchObject({ status: 'waiting' });
    expect(bars.find((bar) => bar.id === 'ok')!.segments.at(-1)).toMatchObject({
      kind: 'wait',
      reason: 'approval',
      end: null,
      endSeq: null,
    });
  });

  it('ends what was still open as cancelled when the run is cancelled', () => {
    const events = stamp([
      { type: 'run.started', flowId: 'f', flowVersion: 1, input: null, backend: 'test' },
      { type: 'step.started', stepId: 'ok', stepType: 'approval' },
      { type: 'approval.requested', stepId: 'ok', prompt: 'Ship?' },
      { type: 'run.cancelled', reason: 'user' },
    ]);
    const bars = timelineOf(events);
    expect(rows(bars)).toEqual([
      'f [run] cancelled: wait:queued 0-10, work 10-30',
      'ok [approval] cancelled: work 10-20, wait:approval 20-30',
    ]);
  });

  it('marks a failed step and keeps the attempts before it', async () => {
    const flow = testFlow(
      [{ id: 'call', type: 'tool', tool: 'lookup', args: {}, retry: { maxAttempts: 2 } }],
      {},
      {
        hostTools: ['lookup'],
      },
    );
    const logs = await record(flow, { tools: { lookup: () => 1 }, failures: { call: ['first', 'second'] } });
    const call = timelineOf(logs.get('r1')!).find((bar) => bar.id === 'call')!;
    expect(call.status).toBe('failed');
    expect(call.segments.map((segment) => segment.kind)).toEqual(['retry', 'wait', 'work']);
  });
});

describe('barAt: a bar as it was after event k', () => {
  it('draws what had begun, cuts what was open at that moment, and says the status then', async () => {
    const shape = shapes.find((candidate) => candidate.name === 'agent loop with retries')!;
    const events = (await record(shape.flow, shape.options)).get('r1')!;
    const turn = timelineOf(events).find((bar) => bar.id === 'agent/llm#1')!;
    const at = (type: string, n = 0) => events.filter((event) => event.type === type)[n]!;
    // Before the turn started.
    expect(barAt(turn, 1, events[0]!.at)).toEqual({ status: 'pending', segments: [] });
    // Right after the first retry: the failed attempt and the scheduled backoff.
    const retried = at('step.retrying');
    const then = barAt(turn, retried.seq, retried.at);
    expect(then.status).toBe('retrying');
    expect(then.segments.map((segment) => segment.kind)).toEqual(['retry', 'wait']);
    // After the first tool call started: the turn had completed.
    const tool = events.find((event) => event.type === 'step.started' && event.stepId === 'agent/tool#1.0')!;
    expect(barAt(turn, tool.seq, tool.at).status).toBe('completed');
    const second = timelineOf(events).find((bar) => bar.id === 'agent/tool#1.1')!;
    const running = barAt(second, tool.seq + 1, tool.at + 5);
    expect(running.status).toBe('running');
    expect(running.segments).toEqual([expect.objectContaining({ kind: 'work', end: tool.at + 5, endSeq: null })]);
  });

  it('is the whole bar once the run has ended', async () => {
    const shape = shapes.find((candidate) => candidate.name === 'approval wait')!;
    const events = (await record(shape.flow, shape.options)).get('r1')!;
    const last = events.at(-1)!;
    for (const bar of timelineOf(events))
      expect(barAt(bar, last.seq, last.at)).toEqual({ status: bar.status, segments: bar.segments });
  });
});

describe('eventIndexAt', () => {
  it('finds the last event at or before a time', () => {
    const events = [{ at: 10 }, { at: 20 }, { at: 20 }, { at: 30 }];
    expect([5, 10, 15, 20, 29, 30, 99].map((time) => eventIndexAt(events, time))).toEqual([-1, 0, 0, 2, 2, 3, 3]);
    expect(eventIndexAt([], 10)).toBe(-1);
  });
});

describe('the run bar', () => {
  it('is first and is no step', async () => {
    const bars = timelineOf((await record(shapes[0]!.flow, shapes[0]!.options)).get('r1')!);
    expect(bars[0]).toMatchObject({ id: RUN_BAR_ID, stepId: null, kind: 'run', depth: 0 });
  });
});

function stamp(events: readonly RunEventInput[]): RunEvent[] {
  return events.map((event, index) => ({ ...event, runId: 'r1', seq: index + 1, at: T0 + index * 10 }) as RunEvent);
}
