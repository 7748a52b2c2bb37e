/**
 * A chat answered by a run that hands off (seed 001): it starts in-process, streams its first
 * model turn from there, and at the first tool call continues on the real Temporal or Inngest
 * dev server. Through the AI SDK's client against `weft serve`: the chat sees one continuous
 * answer — the same text, tool and step parts as an answer that stayed in-process — under one
 * run id, and the run's output is the same.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type InngestDevServer, startInngestDevServer } from '@weft/adapters/inngest';
import { startTemporalDevServer, type TemporalDevServer } from '@weft/adapters/temporal';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamOf } from '../src/server/chat/chat-stream.ts';
import { client, type Server, serve, shutdown } from './serve-process.ts';

const agentFlow = (id: string, extra: Record<string, unknown> = {}) => ({
  irVersion: 1,
  id,
  name: id,
  input: { type: 'object', properties: { messages: { type: 'array' } } },
  tools: {
    double: {
      description: 'Doubles a number.',
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      source: 'return args.n * 2;',
    },
  },
  steps: [
    {
      id: 'agent',
      type: 'llm',
      model: 'openai:gpt-4o-mini',
      messages: '=input.messages',
      tools: ['double'],
      maxSteps: 3,
    },
  ],
  ...extra,
});

const fixtures = {
  agent: [
    { text: 'Let me work that out.', toolCalls: [{ tool: 'double', args: { n: 21 } }], streamMs: 200 },
    { text: 'Twenty-one doubled is forty-two.', streamMs: 200 },
  ],
};

let temporal: TemporalDevServer | undefined;
let inngest: InngestDevServer | undefined;
let server: Server | undefined;
let dataDir: string;

beforeAll(async () => {
  [temporal, inngest] = await Promise.all([startTemporalDevServer(), startInngestDevServer()]);
  dataDir = await mkdtemp(join(tmpdir(), 'weft-chat-handoff-'));
  server = await serve('chat-handoff', {
    dataDir,
    // The recorded turns and the engine are the client's `fixtures` and `backend`: allowed here.
    env: {
      TEMPORAL_ADDRESS: temporal.address,
      INNGEST_DEV: inngest.url,
      WEFT_CHAT_CLIENT_OVERRIDES: 'fixtures,backend',
    },
  });
  const api = client(server);
  await api.flows.create.mutate({ doc: agentFlow('stay') });
  for (const to of ['temporal', 'inngest'])
    await api.flows.create.mutate({ doc: agentFlow(`to-${to}`, { handoff: { to, at: 'first-tool-call' } }) });
}, 15 * 60_000);

afterAll(async () => {
  await shutdown(server);
  await Promise.allSettled([temporal?.stop(), inngest?.stop()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function ask(flowId: string): Promise<{ message: UIMessage; chunks: UIMessageChunk[] }> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${server!.url}/api/chat/${flowId}`,
    body: { fixtures },
  });
  const stream = await transport.sendMessages({
    chatId: `chat-${flowId}`,
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is 21 doubled?' }] }],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  let message: UIMessage | undefined;
  // A copy: the reader updates data parts in place, chunks included.
  for await (const built of readUIMessageStream({ stream: streamOf(structuredClone(chunks)) })) message = built;
  return { message: message!, chunks };
}

/** The answer without what differs between runs (ids, the run part). */
function content(message: UIMessage): unknown[] {
  return message.parts.flatMap((part): unknown[] => {
    if (part.type === 'text') return [{ text: part.text }];
    if (part.type === 'dynamic-tool')
      return [{ tool: part.toolName, id: part.toolCallId, input: part.input, state: part.state, output: part.output }];
    if (part.type === 'data-step') return [{ step: (part as { data: unknown }).data }];
    return [];
  });
}

describe.each(['temporal', 'inngest'])('a chat whose run hands off to %s', (to) => {
  it('streams one continuous answer, the same as in-process, under one run id', async () => {
    const stayed = await ask('stay');
    const { message, chunks } = await ask(`to-${to}`);
    expect(content(message)).toEqual(content(stayed.message));
    expect(content(message).filter((part) => Object.hasOwn(part as object, 'text'))).toEqual([
      { text: 'Let me work that out.' },
      { text: 'Twenty-one doubled is forty-two.' },
    ]);
    const runId = (message.metadata as { runId: string }).runId;
    const run = message.parts.find((part) => part.type === 'data-run') as { data: unknown };
    expect(run.data).toEqual({
      runId,
      status: 'completed',
      backend: to,
      handoff: { from: 'inprocess', to, checkpoint: 'agent/tool#1.0' },
    });
    // One stream: one start, one finish, the first turn's text before the hand-off.
    expect(chunks.filter((chunk) => chunk.type === 'start')).toHaveLength(1);
    expect(chunks.filter((chunk) => chunk.type === 'finish')).toHaveLength(1);
    const handedOff = chunks.findIndex(
      (chunk) => chunk.type === 'data-run' && (chunk.data as { handoff: unknown }).handoff !== null,
    );
    const firstText = chunks.findIndex((chunk) => chunk.type === 'text-delta');
    expect(firstText).toBeGreaterThan(-1);
    expect(firstText).toBeLessThan(handedOff);

    const api = client(server!);
    const [a, b] = await Promise.all([
      api.runs.get.query({ runId: (stayed.message.metadata as { runId: string }).runId }),
      api.runs.get.query({ runId }),
    ]);
    expect(b.run.output).toEqual(a.run.output);
    expect(b.run.status).toBe('completed');
    const { events } = await api.runs.eventsPage.query({ runId, limit: 5000 });
    const count = (type: string) => events.filter((event) => event.type === type).length;
    expect([count('run.started'), count('run.handed-off'), count('run.completed')]).toEqual([1, 1, 1]);
  }, 120_000);
});
