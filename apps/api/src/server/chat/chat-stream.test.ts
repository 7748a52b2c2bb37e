/**
 * The translation of run events into UI message chunks, case by case: what a `useChat` client
 * ends up with (the AI SDK's own reader builds the message) for each shape of event log.
 */
import type { Flow, RunEvent, RunEventInput } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { messageOf } from './chat-sessions.ts';
import { chatTextSteps, chunksOf } from './chat-stream.ts';

const RUN = 'run_1';
let seq = 0;
const log = (...events: RunEventInput[]): RunEvent[] =>
  events.map((event) => ({ ...event, runId: RUN, seq: ++seq, at: 1000 + seq }) as RunEvent);

const started: RunEventInput = { type: 'run.started', flowId: 'f', flowVersion: 1, input: {}, backend: 'inprocess' };
const turn = (id: string, ...body: RunEventInput[]): RunEventInput[] => [
  { type: 'step.started', stepId: id, stepType: 'model-turn', parentId: id.replace(/\/llm#\d+$/, '') },
  ...body,
];
const delta = (stepId: string, text: string, offset?: number): RunEventInput => ({
  type: 'step.delta',
  stepId,
  text,
  ...(offset === undefined ? {} : { offset }),
});
const turnDone = (stepId: string, text: string, reused = false): RunEventInput => ({
  type: 'step.completed',
  stepId,
  output: { text, toolCalls: [] },
  ...(reused ? { reused: true as const } : {}),
});
const done: RunEventInput = { type: 'run.completed', output: { ok: true } };

async function answer(events: RunEventInput[], textSteps = ['answer']) {
  return messageOf(chunksOf(RUN, new Set(textSteps), log(...events)));
}
const texts = (message: Awaited<ReturnType<typeof answer>>) =>
  (message?.parts ?? []).filter((part) => part.type === 'text').map((part) => part.text);

describe('text of the chosen llm steps', () => {
  const cases: [string, RunEventInput[], string[]][] = [
    [
      'streamed deltas',
      [
        started,
        ...turn('answer/llm#1', delta('answer/llm#1', 'Hel', 0), delta('answer/llm#1', 'lo', 3)),
        turnDone('answer/llm#1', 'Hello'),
        done,
      ],
      ['Hello'],
    ],
    [
      'an attempt that started over adds only what was not sent',
      [
        started,
        ...turn(
          'answer/llm#1',
          delta('answer/llm#1', 'Hel', 0),
          delta('answer/llm#1', 'Hel', 0),
          delta('answer/llm#1', 'lo wor', 3),
          delta('answer/llm#1', 'ld', 9),
        ),
        turnDone('answer/llm#1', 'Hello world'),
        done,
      ],
      ['Hello world'],
    ],
    [
      'a gap (a delta committed late) is filled by the completion',
      [
        started,
        ...turn('answer/llm#1', delta('answer/llm#1', 'Hel', 0), delta('answer/llm#1', 'rld', 8)),
        turnDone('answer/llm#1', 'Hello world'),
        done,
      ],
      ['Hello world'],
    ],
    [
      'a turn reused from a seed (no deltas) is sent whole',
      [started, ...turn('answer/llm#1'), turnDone('answer/llm#1', 'From the seed', true), done],
      ['From the seed'],
    ],
    [
      'deltas without offsets (an older log) append',
      [
        started,
        ...turn('answer/llm#1', delta('answer/llm#1', 'a'), delta('answer/llm#1', 'b')),
        turnDone('answer/llm#1', 'ab'),
        done,
      ],
      ['ab'],
    ],
    [
      'a step not chosen sends no text; the run output stands in when nothing else did',
      [started, ...turn('draft/llm#1', delta('draft/llm#1', 'secret', 0)), turnDone('draft/llm#1', 'secret'), done],
      ['{\n  "ok": true\n}'],
    ],
    [
      'each turn of an agent loop is its own text part, in a map iteration too',
      [
        started,
        ...turn('each[0]/answer/llm#1'),
        turnDone('each[0]/answer/llm#1', 'one'),
        ...turn('each[0]/answer/llm#2'),
        turnDone('each[0]/answer/llm#2', 'two'),
        done,
      ],
      ['one', 'two'],
    ],
  ];
  it.each(cases)('%s', async (_, events, expected) => {
    expect(texts(await answer(events))).toEqual(expected);
  });
});

describe('tools, steps, approvals and the run', () => {
  it('gives a tool call a dynamic tool part with its input and output, a failed one its error', async () => {
    const message = await answer([
      started,
      { type: 'step.started', stepId: 'agent/tool#1.0', stepType: 'tool-call', input: { tool: 'add', args: { a: 1 } } },
      { type: 'step.started', stepId: 'agent/tool#1.1', stepType: 'tool-call', input: { tool: 'boom', args: {} } },
      { type: 'step.completed', stepId: 'agent/tool#1.0', output: 2 },
      { type: 'step.failed', stepId: 'agent/tool#1.1', error: { name: 'Error', message: 'no' } },
      done,
    ]);
    const tools = message?.parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools).toEqual([
      expect.objectContaining({
        toolCallId: 'agent/tool#1.0',
        toolName: 'add',
        input: { a: 1 },
        output: 2,
        state: 'output-available',
      }),
      expect.objectContaining({
        toolCallId: 'agent/tool#1.1',
        toolName: 'boom',
        errorText: 'no',
        state: 'output-error',
      }),
    ]);
  });

  it('keeps one part per step and per approval, updated in place', async () => {
    const message = await answer([
      started,
      { type: 'step.started', stepId: 'gate', stepType: 'approval' },
      { type: 'approval.requested', stepId: 'gate', prompt: 'Ship it?' },
      { type: 'approval.resolved', stepId: 'gate', approved: true, by: 'ana', comment: 'ok', timedOut: false },
      { type: 'step.completed', stepId: 'gate', output: { approved: true } },
      done,
    ]);
    const data = message?.parts.filter((part) => part.type.startsWith('data-')) as { type: string; data: unknown }[];
    expect(data.map((part) => [part.type, part.data])).toEqual([
      ['data-run', { runId: RUN, status: 'completed', backend: 'inprocess', handoff: null }],
      ['data-step', { stepId: 'gate', stepType: 'approval', status: 'completed', summary: '{"approved":true}' }],
      [
        'data-approval',
        { runId: RUN, stepId: 'gate', prompt: 'Ship it?', status: 'approved', by: 'ana', comment: 'ok' },
      ],
    ]);
  });

  it('shows a hand-off, and ends a failed run with its error', async () => {
    const chunks = chunksOf(
      RUN,
      new Set(['answer']),
      log(
        started,
        { type: 'run.handed-off', from: 'inprocess', to: 'temporal', checkpoint: 'agent/tool#1.0' },
        {
          type: 'run.failed',
          error: { name: 'Error', message: 'it broke' },
        },
      ),
    );
    expect(chunks.find((chunk) => chunk.type === 'error')).toEqual({ type: 'error', errorText: 'it broke' });
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'error',
      messageMetadata: { runId: RUN, status: 'failed' },
    });
    const message = await messageOf(chunks);
    const run = message?.parts.find((part) => part.type === 'data-run') as { data: unknown } | undefined;
    expect(run?.data).toEqual({
      runId: RUN,
      status: 'failed',
      backend: 'temporal',
      handoff: { from: 'inprocess', to: 'temporal', checkpoint: 'agent/tool#1.0' },
    });
    expect(message?.metadata).toEqual({ runId: RUN, status: 'failed' });
  });

  it('gives the same chunks for the same events, and nothing after the end', () => {
    const events = log(
      started,
      ...turn('answer/llm#1', delta('answer/llm#1', 'x', 0)),
      turnDone('answer/llm#1', 'x'),
      done,
    );
    const late = log(delta('answer/llm#1', 'late', 1));
    expect(chunksOf(RUN, new Set(['answer']), [...events, ...late])).toEqual(
      chunksOf(RUN, new Set(['answer']), events),
    );
  });
});

describe('which steps speak in the chat', () => {
  const flow = (extra: Partial<Flow>): Flow =>
    ({
      irVersion: 1,
      id: 'f',
      name: 'f',
      steps: [
        { id: 'draft', type: 'llm', model: 'mock:echo', prompt: 'x' },
        { id: 'final', type: 'llm', model: 'mock:echo', prompt: 'y' },
        { id: 'shape', type: 'transform', value: '=1' },
      ],
      ...extra,
    }) as Flow;
  const cases: [string, Partial<Flow>, string[]][] = [
    ['the ones the flow names', { chat: { textSteps: ['draft'] } }, ['draft']],
    ['the last llm step the output reads', { output: { a: '=steps.draft.output.text' } }, ['draft']],
    ['the last llm step when the last step is not one', {}, ['final']],
  ];
  it.each(cases)('%s', (_, extra, expected) => {
    expect([...chatTextSteps(flow(extra))]).toEqual(expected);
  });
});
