/**
 * Time to first token through the chat endpoint, as a `useChat` client sees it: a real
 * `weft serve` (in-process, plus the real Temporal and Inngest dev servers on loopback), driven
 * over HTTP by the AI SDK's own `DefaultChatTransport` and UI message stream reader. The same
 * flow and model in every case — an agent whose recorded turns (fixtures, no provider) answer
 * "let me look" with a tool call, then the answer — started
 *
 *   (a) in-process,  (b) directly on Temporal,  (c) directly on Inngest,
 *   (d) in-process with a hand-off to Temporal at the first tool call (`handoff` in the flow).
 *
 * First token, two ways: in the store — from the run's creation to its llm step's first text
 * delta committed, by the store's clock (what the engine adds) — and at the client — from sending
 * the message to the first `text-delta` chunk the AI SDK client reads (HTTP included); "whole
 * answer" = the stream's end. Then the chunk throughput to one client: an answer of 20,000 words
 * streamed as fast as the recorded turn allows (one delta per word), in-process.
 *
 *   pnpm bench:chat               # 5 timed rounds per case (median), after a warm-up
 *   node bench/chat.ts --quick    # 2 rounds
 *
 * Targets (reported, not asserted): (d)'s first token within 1.2× of (a)'s, and at least 10×
 * sooner than (b)'s. The Temporal and Inngest binaries come from scripts/ensure-*.sh.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { startInngestDevServer } from '../packages/adapters/src/inngest/dev-server.ts';
import { startTemporalDevServer } from '../packages/adapters/src/temporal/dev-server.ts';
import { median } from './lib/measure.ts';

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const ROUNDS = args.quick ? 2 : 5;
const MAIN = resolve(import.meta.dirname, '../apps/api/src/cli/main.ts');

const ANSWER_WORDS = 60;
const THROUGHPUT_WORDS = 20_000;

const agentFlow = (id: string, extra: Record<string, unknown> = {}) => ({
  irVersion: 1,
  id,
  name: id,
  input: { type: 'object', properties: { messages: { type: 'array' } } },
  tools: {
    lookup: {
      description: 'Looks a term up.',
      parameters: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] },
      source: 'return { term: args.term, found: true };',
    },
  },
  steps: [
    {
      id: 'agent',
      type: 'llm',
      model: 'openai:gpt-4o-mini',
      messages: '=input.messages',
      tools: ['lookup'],
      maxSteps: 3,
    },
  ],
  ...extra,
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
/** Recorded turns: "let me look" with a tool call (streamed over 100 ms), then the answer. */
const agentFixtures = {
  agent: [
    { text: 'Let me look that up for you.', toolCalls: [{ tool: 'lookup', args: { term: 'weft' } }], streamMs: 100 },
    { text: words(ANSWER_WORDS), streamMs: 200 },
  ],
};
const longFlow = {
  irVersion: 1,
  id: 'long-answer',
  name: 'Long answer',
  steps: [{ id: 'answer', type: 'llm', model: 'openai:gpt-4o-mini', messages: '=input.messages' }],
};
const longFixtures = { answer: [{ text: words(THROUGHPUT_WORDS), streamMs: 1 }] };

interface Weft {
  url: string;
  child: ChildProcess;
}

async function startWeft(env: Record<string, string>, dataDir: string): Promise<Weft> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0'], {
    cwd: dataDir,
    env: { ...process.env, WEFT_DATA: join(dataDir, 'data'), WEFT_LOG_LEVEL: 'warn', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`weft serve did not start:\n${out}`)), 120_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!.replace(/\/$/, ''));
      }
    });
    child.once('exit', (code) => reject(new Error(`weft serve exited with ${code}:\n${out}`)));
  });
  return { url, child };
}

async function trpc(url: string, path: string, input: unknown): Promise<unknown> {
  const response = await fetch(`${url}/trpc/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { result?: { data: unknown }; error?: { message: string } };
  if (!response.ok) throw new Error(`${path}: ${body.error?.message ?? response.status}`);
  return body.result?.data;
}

async function query<T>(url: string, path: string, input: unknown): Promise<T> {
  const response = await fetch(`${url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
  const body = (await response.json()) as { result?: { data: T }; error?: { message: string } };
  if (!response.ok || !body.result) throw new Error(`${path}: ${body.error?.message ?? response.status}`);
  return body.result.data;
}

/** From the run's creation to its first stored text delta, by the store's own clock. */
async function storedFirstTokenMs(url: string, runId: string): Promise<number> {
  const { run } = await query<{ run: { createdAt: number } }>(url, 'runs.get', { runId });
  const { events } = await query<{ events: { type: string; at: number }[] }>(url, 'runs.eventsPage', {
    runId,
    limit: 50,
  });
  const first = events.find((event) => event.type === 'step.delta');
  return first ? first.at - run.createdAt : Number.NaN;
}

interface Timing {
  firstTokenMs: number;
  storedFirstTokenMs: number;
  endMs: number;
  chunks: number;
  bytes: number;
  runId: string;
  backends: string;
}

let chatCounter = 0;

/** One chat turn, timed at the client: first text delta and end of stream. */
async function chatTurn(weft: Weft, flowId: string, body: Record<string, unknown>): Promise<Timing> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${weft.url}/api/chat/${flowId}`, body });
  const message: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is weft?' }] };
  const started = performance.now();
  const stream = await transport.sendMessages({
    chatId: `bench-${process.pid}-${++chatCounter}`,
    messages: [message],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let firstTokenMs = Number.NaN;
  let chunks = 0;
  let bytes = 0;
  let runId = '';
  let backends = '';
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const chunk = value as UIMessageChunk;
    chunks++;
    if (chunk.type === 'text-delta') {
      if (Number.isNaN(firstTokenMs)) firstTokenMs = performance.now() - started;
      bytes += chunk.delta.length;
    }
    if (chunk.type === 'start') runId = (chunk.messageMetadata as { runId: string }).runId;
    if (chunk.type === 'data-run') {
      const data = chunk.data as { status: string; backend: string; handoff: { from: string; to: string } | null };
      backends = data.handoff ? `${data.handoff.from}→${data.handoff.to}` : data.backend;
      if (data.status !== 'running' && data.status !== 'completed') throw new Error(`run ${runId} ${data.status}`);
    }
  }
  const endMs = performance.now() - started;
  return {
    firstTokenMs,
    storedFirstTokenMs: await storedFirstTokenMs(weft.url, runId),
    endMs,
    chunks,
    bytes,
    runId,
    backends,
  };
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-chat-'));
  const loadStart = loadavg()[0]!;
  console.log(`bench/chat — ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}`);
  console.log(
    `load average at start: ${loadStart.toFixed(2)}${loadStart > 1.5 ? '  (busy machine: read ratios)' : ''}`,
  );
  const [temporal, inngest] = await Promise.all([startTemporalDevServer(), startInngestDevServer()]);
  let weft: Weft | undefined;
  try {
    // The cases send recorded turns and an engine as the client's `fixtures` and `backend`.
    weft = await startWeft(
      { TEMPORAL_ADDRESS: temporal.address, INNGEST_DEV: inngest.url, WEFT_CHAT_CLIENT_OVERRIDES: 'fixtures,backend' },
      dir,
    );
    await trpc(weft.url, 'flows.create', { doc: agentFlow('chat-agent') });
    await trpc(weft.url, 'flows.create', {
      doc: agentFlow('chat-agent-handoff', { handoff: { to: 'temporal', at: 'first-tool-call' } }),
    });
    await trpc(weft.url, 'flows.create', { doc: longFlow });

    const cases = [
      { id: 'a', what: 'in-process', flowId: 'chat-agent', body: { fixtures: agentFixtures } },
      {
        id: 'b',
        what: 'Temporal, started directly',
        flowId: 'chat-agent',
        body: { fixtures: agentFixtures, backend: 'temporal' },
      },
      {
        id: 'c',
        what: 'Inngest, started directly',
        flowId: 'chat-agent',
        body: { fixtures: agentFixtures, backend: 'inngest' },
      },
      {
        id: 'd',
        what: 'in-process, hand-off to Temporal at the first tool call',
        flowId: 'chat-agent-handoff',
        body: { fixtures: agentFixtures },
      },
    ] as const;
    const results = new Map<string, { first: number; stored: number; end: number; backends: string }>();
    for (const c of cases) {
      await chatTurn(weft, c.flowId, c.body); // warm-up: connections, worker, sandbox
      const timings: Timing[] = [];
      for (let round = 0; round < ROUNDS; round++) timings.push(await chatTurn(weft, c.flowId, c.body));
      const first = median(timings.map((t) => t.firstTokenMs));
      const end = median(timings.map((t) => t.endMs));
      const stored = median(timings.map((t) => t.storedFirstTokenMs));
      results.set(c.id, { first, stored, end, backends: timings.at(-1)!.backends });
      process.stderr.write(`  (${c.id}) done: first token ${fmt(first)} ms\n`);
    }

    console.log(`\nTime to first token, median of ${ROUNDS} (ms)`);
    console.log(
      "  in the store:  from the run's creation to its llm step's first text delta committed (the store's clock)",
    );
    console.log(
      '  at the client: from sending the message to the first text delta read by the AI SDK client over HTTP\n',
    );
    console.log(
      `case | ${'started'.padEnd(55)} | ${'ran on'.padEnd(18)} | in the store | at the client | whole answer`,
    );
    console.log(`-----|-${'-'.repeat(55)}-|-${'-'.repeat(18)}-|--------------|---------------|-------------`);
    for (const c of cases) {
      const r = results.get(c.id)!;
      console.log(
        `(${c.id})  | ${c.what.padEnd(55)} | ${r.backends.padEnd(18)} | ${fmt(r.stored).padStart(12)} | ${fmt(r.first).padStart(13)} | ${fmt(r.end).padStart(12)}`,
      );
    }
    const a = results.get('a')!;
    const b = results.get('b')!;
    const d = results.get('d')!;
    for (const [label, key] of [
      ['in the store', 'stored'],
      ['at the client', 'first'],
    ] as const) {
      const vsA = d[key] / a[key];
      const vsB = b[key] / d[key];
      console.log(
        `${label.padEnd(13)}: (d)/(a) ${vsA.toFixed(2)}× (target ≤ 1.2×: ${vsA <= 1.2 ? 'ok' : 'MISS'}),` +
          ` (b)/(d) ${vsB.toFixed(1)}× (target ≥ 10×: ${vsB >= 10 ? 'ok' : 'MISS'})`,
      );
    }

    const long = await chatTurn(weft, 'long-answer', { fixtures: longFixtures });
    const streamMs = long.endMs - long.firstTokenMs;
    console.log(
      `\nThroughput to one client: ${THROUGHPUT_WORDS.toLocaleString('en')} deltas in ${fmt(streamMs)} ms from first to last ` +
        `= ${Math.round((long.chunks / streamMs) * 1000).toLocaleString('en')} chunks/s, ` +
        `${(((long.bytes / streamMs) * 1000) / 1024).toFixed(0)} KiB/s of text (${long.chunks.toLocaleString('en')} chunks in all)`,
    );
  } finally {
    weft?.child.kill('SIGTERM');
    await Promise.allSettled([temporal.stop(), inngest.stop()]);
    rmSync(dir, { recursive: true, force: true });
    const loadEnd = loadavg()[0]!;
    console.log(`load average at end: ${loadEnd.toFixed(2)}${loadEnd > 1.5 ? '  (busy machine: read ratios)' : ''}`);
  }
}

await main();
