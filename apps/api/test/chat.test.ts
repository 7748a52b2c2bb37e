/**
 * A flow as a chat backend, through the AI SDK's own client (`DefaultChatTransport` and its UI
 * message stream reader) against a real `weft serve` process:
 * - the parsed answer is what the flow produced (text, tool call and result, step parts);
 * - a connection cut mid-answer resumes through GET, from the start or from a position, and the
 *   final message has every part exactly once;
 * - the same after SIGKILL and a restart of `weft serve` mid-answer;
 * - the answer is settled into the chat's stored messages, and the next turn carries it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamOf } from '../src/server/chat/chat-stream.ts';
import { client, type Server, serve, shutdown } from './serve-process.ts';

const ANSWER =
  'Twenty-one doubled is forty-two, which the double tool confirmed. That is the whole answer, streamed word by word.';

const chatFlow = {
  irVersion: 1,
  id: 'chat-agent',
  name: 'Chat agent',
  input: { type: 'object', properties: { messages: { type: 'array' } }, required: ['messages'] },
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
    { id: 'tally', type: 'transform', value: { calls: '=len(steps.agent.output.toolCalls)' } },
  ],
  output: { answer: '=steps.agent.output.text', calls: '=steps.tally.output.calls' },
};

/** Recorded turns: a tool call, then the answer streamed over `streamMs`. */
const fixtures = (streamMs: number) => ({
  agent: [{ toolCalls: [{ tool: 'double', args: { n: 21 } }] }, { text: ANSWER, streamMs }],
});

const userMessage = (text: string): UIMessage => ({
  id: `u-${Math.random().toString(36).slice(2)}`,
  role: 'user',
  parts: [{ type: 'text', text }],
});

let server: Server | undefined;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'weft-chat-'));
  // The recorded turns are sent as the client's `fixtures`, which the operator must allow.
  server = await serve('chat', { dataDir, env: { WEFT_CHAT_CLIENT_OVERRIDES: 'fixtures' } });
  await client(server).flows.create.mutate({ doc: chatFlow });
}, 90_000);

afterAll(async () => {
  await shutdown(server);
  await rm(dataDir, { recursive: true, force: true });
});

function transport() {
  return new DefaultChatTransport<UIMessage>({
    api: `${server!.url}/api/chat/chat-agent`,
    body: { fixtures: fixtures(1_500) },
  });
}

async function send(chatId: string, messages: UIMessage[], abortSignal?: AbortSignal) {
  return transport().sendMessages({ chatId, messages, trigger: 'submit-message', messageId: undefined, abortSignal });
}

/** Reads chunks until `stop` says so (then cancels: a disconnect), or to the end. */
async function readChunks(stream: ReadableStream<UIMessageChunk>, stop?: (chunks: UIMessageChunk[]) => boolean) {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
    if (stop?.(chunks)) {
      await reader.cancel();
      return chunks;
    }
  }
}

async function messageOf(chunks: UIMessageChunk[]): Promise<UIMessage> {
  let last: UIMessage | undefined;
  // A copy: the reader updates data parts in place, chunks included.
  for await (const message of readUIMessageStream({ stream: streamOf(structuredClone(chunks)) })) last = message;
  if (!last) throw new Error('the stream built no message');
  return last;
}

const textDeltas = (chunks: UIMessageChunk[]) => chunks.filter((chunk) => chunk.type === 'text-delta').length;
const runIdOf = (message: UIMessage) => (message.metadata as { runId: string }).runId;

/** Every part exactly once: one text part per model turn, one tool part per call, one part per data id. */
function expectEachPartOnce(message: UIMessage) {
  const keys = message.parts
    .filter((part) => part.type !== 'step-start')
    .map((part) => {
      if (part.type === 'text') return `text:${part.text.slice(0, 20)}`;
      if (part.type === 'dynamic-tool') return `tool:${part.toolCallId}`;
      if (part.type.startsWith('data-')) return `${part.type}:${(part as { id?: string }).id}`;
      return part.type;
    });
  expect(new Set(keys).size).toBe(keys.length);
}

/** The answer as the flow produced it: the same for every run of this chat flow. */
function expectTheAnswer(message: UIMessage) {
  expect(message.role).toBe('assistant');
  expect(message.id).toBe(`msg-${runIdOf(message)}`);
  const texts = message.parts.filter((part) => part.type === 'text');
  expect(texts.map((part) => part.text)).toEqual([ANSWER]);
  const tools = message.parts.filter((part) => part.type === 'dynamic-tool');
  expect(tools).toEqual([
    expect.objectContaining({
      type: 'dynamic-tool',
      toolName: 'double',
      toolCallId: 'agent/tool#1.0',
      input: { n: 21 },
      output: 42,
      state: 'output-available',
    }),
  ]);
  const steps = message.parts.filter((part) => part.type === 'data-step') as { data: unknown }[];
  expect(steps.map((part) => part.data)).toEqual([
    { stepId: 'agent', stepType: 'llm', status: 'completed', summary: expect.stringContaining('Twenty-one') },
    { stepId: 'tally', stepType: 'transform', status: 'completed', summary: '{"calls":1}' },
  ]);
  const run = message.parts.find((part) => part.type === 'data-run') as { data: unknown } | undefined;
  expect(run?.data).toMatchObject({ runId: runIdOf(message), status: 'completed', backend: 'inprocess' });
  expectEachPartOnce(message);
}

describe('chat endpoint with the ai SDK client', () => {
  it('streams the answer the flow produced, and settles it into the chat', async () => {
    const chatId = 'chat-whole';
    const question = userMessage('What is 21 doubled?');
    const chunks = await readChunks(await send(chatId, [question]));
    expect(textDeltas(chunks)).toBeGreaterThan(5); // streamed, not sent in one piece
    const answer = await messageOf(chunks);
    expectTheAnswer(answer);

    const api = client(server!);
    const { run } = await api.runs.get.query({ runId: runIdOf(answer) });
    expect(run.output).toEqual({ answer: ANSWER, calls: 1 });
    // The conversation reached the flow as model messages.
    expect(run.input).toEqual({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is 21 doubled?' }] }],
    });

    const stored = (await (await fetch(`${server!.url}/api/chat/${chatId}`)).json()) as { messages: UIMessage[] };
    expect(stored).toMatchObject({ id: chatId, flowId: 'chat-agent', title: 'What is 21 doubled?', activeRunId: null });
    expect(stored.messages).toEqual([question, answer]);
    expect((await fetch(`${server!.url}/api/chat/${chatId}/stream`)).status).toBe(204);

    // The next turn carries the whole conversation, the tool call and its result included.
    const next = await messageOf(await readChunks(await send(chatId, [question, answer, userMessage('Thanks!')])));
    const second = await api.runs.get.query({ runId: runIdOf(next) });
    const roles = (second.run.input as { messages: { role: string }[] }).messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    const list = (await (await fetch(`${server!.url}/api/chat?flowId=chat-agent`)).json()) as {
      chats: { id: string }[];
    };
    expect(list.chats.map((chat) => chat.id)).toContain(chatId);
  }, 60_000);

  it('resumes a connection cut mid-answer through GET, from the start and from a position', async () => {
    const chatId = 'chat-cut';
    const cut = await readChunks(await send(chatId, [userMessage('What is 21 doubled?')]), (c) => textDeltas(c) >= 3);
    const resumed = await transport().reconnectToStream({ chatId });
    if (!resumed) throw new Error('nothing to resume');
    const whole = await readChunks(resumed);
    // From the start: the same chunks the cut stream began with, then the rest.
    expect(whole.slice(0, cut.length)).toEqual(cut);
    const fromStart = await messageOf(whole);
    expectTheAnswer(fromStart);
    // From a position: what the client has, plus the rest.
    const rest = await fetch(`${server!.url}/api/chat/${chatId}/stream?from=${cut.length}`);
    expect(rest.status).toBe(200);
    const sse = await rest.text();
    const fromPosition = sse
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
      .map((line) => JSON.parse(line.slice(6)) as UIMessageChunk);
    expect(await messageOf([...cut, ...fromPosition])).toEqual(fromStart);
  }, 60_000);

  it('refuses what it cannot take, naming the field', async () => {
    const errorOf = async (response: Response) =>
      ((await response.json()) as { error: { message: string } }).error.message;
    const post = (path: string, body: unknown) =>
      fetch(`${server!.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const unknownFlow = await post('/api/chat/nope', { id: 'c1', messages: [userMessage('hi')] });
    expect(unknownFlow.status).toBe(404);
    expect(await errorOf(unknownFlow)).toContain("unknown flow 'nope'");
    const noId = await post('/api/chat/chat-agent', { messages: [userMessage('hi')] });
    expect(noId.status).toBe(400);
    expect(await errorOf(noId)).toMatch(/^id: /);
    const badMessages = await post('/api/chat/chat-agent', { id: 'c2', messages: [{ role: 'user' }] });
    expect(badMessages.status).toBe(400);
    expect(await errorOf(badMessages)).toMatch(/^messages: /);
    expect((await fetch(`${server!.url}/api/chat/unknown-chat`)).status).toBe(404);
  });
});

describe('chat endpoint across a SIGKILL of weft serve', () => {
  it('resumes after a restart mid-answer: the run completes once and every part comes once', async () => {
    const chatId = 'chat-killed';
    const port = Number(new URL(server!.url).port);
    const cut = await readChunks(await send(chatId, [userMessage('What is 21 doubled?')]), (c) => textDeltas(c) >= 3);
    const runId = (cut.find((chunk) => chunk.type === 'start') as { messageMetadata: { runId: string } })
      .messageMetadata.runId;
    server!.child.kill('SIGKILL');
    await new Promise((resolve) => server!.child.once('exit', resolve));
    server = await serve('chat-restarted', { dataDir, port });

    const resumed = await transport().reconnectToStream({ chatId });
    if (!resumed) throw new Error('nothing to resume after the restart');
    const answer = await messageOf(await readChunks(resumed));
    expect(runIdOf(answer)).toBe(runId);
    expectTheAnswer(answer);
    const { events } = await client(server).runs.eventsPage.query({ runId, limit: 5000 });
    expect(events.filter((event: { type: string }) => event.type === 'run.completed')).toHaveLength(1);
    // The killed answer really was cut: its turn streamed from the start twice, and came once.
    const restarts = events.filter(
      (event) => event.type === 'step.delta' && event.stepId === 'agent/llm#2' && event.offset === 0,
    );
    expect(restarts).toHaveLength(2);
    expect(
      events.filter(
        (event: { type: string; stepId?: string }) =>
          event.type === 'step.completed' && event.stepId === 'agent/tool#1.0',
      ),
    ).toHaveLength(1);
  }, 120_000);
});
