import type { RunEvent, RunEventInput } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import type { Writer } from '../src/cli/output.ts';
import { ProgressRenderer } from '../src/cli/progress.ts';

function capture(isTTY: boolean): Writer & { text: string } {
  const writer = {
    text: '',
    isTTY,
    write: (t: string) => {
      writer.text += t;
    },
    style: (_: unknown, t: string) => t,
  };
  return writer;
}

let seq = 0;
function ev(runId: string, at: number, event: RunEventInput): RunEvent {
  return { ...event, runId, seq: ++seq, at } as RunEvent;
}

const turn = (text: string) => ({
  text,
  toolCalls: [],
  responseMessages: [],
  usage: { inputTokens: 2, outputTokens: 3, totalTokens: 5 },
  finishReason: 'stop',
});

const events: RunEvent[] = [
  ev('r1', 0, { type: 'run.started', flowId: 'demo', flowVersion: 2, input: {}, backend: 'inprocess' }),
  ev('r1', 0, {
    type: 'step.started',
    stepId: 'agent',
    stepType: 'llm',
    input: { model: 'mock:echo', messages: [], tools: [] },
  }),
  ev('r1', 1, { type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' }),
  ev('r1', 5, { type: 'step.delta', stepId: 'agent/llm#1', text: 'hel' }),
  ev('r1', 6, { type: 'step.delta', stepId: 'agent/llm#1', text: 'lo\nworld' }),
  ev('r1', 9, {
    type: 'step.completed',
    stepId: 'agent/llm#1',
    output: turn('hello\nworld'),
    usage: { inputTokens: 2, outputTokens: 3, totalTokens: 5 },
  }),
  ev('r1', 9, { type: 'step.completed', stepId: 'agent', output: { text: 'hello\nworld', messages: [] } }),
  ev('r1', 10, { type: 'step.started', stepId: 'fetch', stepType: 'http' }),
  ev('r1', 20, {
    type: 'step.retrying',
    stepId: 'fetch',
    attempt: 1,
    error: { name: 'Error', message: 'HTTP 503' },
    delayMs: 1000,
  }),
  ev('r1', 1500, {
    type: 'step.failed',
    stepId: 'fetch',
    error: { name: 'Error', message: 'HTTP 503 (after 2 attempts)' },
  }),
  ev('r1', 1500, { type: 'step.started', stepId: 'ok', stepType: 'approval' }),
  ev('r1', 1500, { type: 'approval.requested', stepId: 'ok', prompt: 'Ship it?' }),
  ev('r1', 1600, {
    type: 'approval.resolved',
    stepId: 'ok',
    approved: false,
    by: 'ann',
    comment: 'not yet',
    timedOut: false,
  }),
  ev('r1', 1700, { type: 'child.started', stepId: 'sub', childRunId: 'r1~sub', flowId: 'child' }),
  ev('r1~sub', 1700, {
    type: 'run.started',
    flowId: 'child',
    flowVersion: 1,
    input: {},
    backend: 'inprocess',
    parentRunId: 'r1',
  }),
  ev('r1~sub', 1700, { type: 'step.started', stepId: 'x', stepType: 'transform' }),
  ev('r1~sub', 1702, { type: 'step.completed', stepId: 'x', output: { deep: [1, 2, 3] } }),
  ev('r1~sub', 1702, { type: 'run.completed', output: 1 }),
  ev('r1', 1702, { type: 'run.completed', output: 1 }),
];

describe('ProgressRenderer', () => {
  it('writes one line per event when stderr is not a terminal', () => {
    const out = capture(false);
    const renderer = new ProgressRenderer(out, new Map([['r1', '']]));
    for (const event of events) renderer.handle(event);
    renderer.end();
    expect(out.text.split('\n').map((line) => line.trimEnd())).toEqual([
      '  ▶ run r1 · demo@2 · inprocess',
      '  ▸ agent              llm mock:echo [mock]',
      '  ▸ agent/llm#1        model turn 1 [mock]',
      '  ⋯ agent/llm#1        "hel"',
      '  ⋯ agent/llm#1        "lo\\nworld"',
      '  ✓ agent/llm#1        8ms "hello ⏎ world" 5 tok [mock]',
      '  ✓ agent              9ms hello ⏎ world',
      '  ▸ fetch              http',
      '  ↻ fetch              attempt 1 failed: HTTP 503; retrying in 1.00s',
      '  ✗ fetch              1.49s HTTP 503 (after 2 attempts)',
      '  ▸ ok                 approval',
      '  ⏸ ok                 approval requested: "Ship it?"',
      '  ☒ ok                 rejected by ann — "not yet"',
      '  ↳ sub                child run r1~sub (flow child)',
      '  ▶ sub › child run r1~sub · child@1 · inprocess',
      '  ▸ sub › x            transform',
      '  ✓ sub › x            2ms {"deep":[1,2,3]}',
      '  ■ sub › child run completed',
      '',
    ]);
  });

  it('streams token deltas inline on a terminal, ending the line before the next event', () => {
    const out = capture(true);
    const renderer = new ProgressRenderer(out, new Map([['r1', '']]));
    for (const event of events.slice(0, 7)) renderer.handle(event);
    expect(out.text).toContain('  ⋯ agent/llm#1        hello\n      world\n  ✓ agent/llm#1');
  });

  it('marks turns answered by fixtures', () => {
    const out = capture(false);
    const renderer = new ProgressRenderer(out, new Map([['r1', '']]));
    renderer.setFixtures('r1', { agent: [{ text: 'hello' }] });
    for (const event of events.slice(0, 3)) renderer.handle(event);
    expect(out.text).toMatch(/▸ agent\/llm#1 +model turn 1 \[fixture\]/);
  });
});
