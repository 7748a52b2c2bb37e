/**
 * A tiny OpenAI-compatible chat server on 127.0.0.1 for tests: it speaks the
 * `POST /v1/chat/completions` + server-sent-events protocol that @ai-sdk/openai-compatible
 * uses, so the `local:` provider is tested over real HTTP without the internet. The model
 * name picks the behaviour.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface FakeOpenAIServer {
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Chunk = Record<string, unknown>;

const delta = (model: string, d: Record<string, unknown>, finish: string | null = null): Chunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model,
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const usage = (model: string, prompt: number, completion: number): Chunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model,
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

function textChunks(model: string, pieces: string[]): Chunk[] {
  return [
    delta(model, { role: 'assistant', content: '' }),
    ...pieces.map((content) => delta(model, { content })),
    delta(model, {}, 'stop'),
    usage(model, 12, pieces.length),
  ];
}

function toolCallChunks(model: string, name: string, args: string[]): Chunk[] {
  return [
    delta(model, { role: 'assistant', content: 'Let me add. ' }),
    delta(model, {
      tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name, arguments: '' } }],
    }),
    ...args.map((part) => delta(model, { tool_calls: [{ index: 0, function: { arguments: part } }] })),
    delta(model, {}, 'tool_calls'),
    usage(model, 20, 7),
  ];
}

function streamChunks(res: ServerResponse, chunks: Chunk[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function respond(req: RecordedRequest, res: ServerResponse): void {
  const model = String(req.body.model);
  switch (model) {
    case 'streamer':
      streamChunks(res, textChunks(model, ['Hello', ' from', ' the', ' local', ' model.']));
      return;
    case 'fast':
      streamChunks(
        res,
        textChunks(
          model,
          Array.from({ length: 500 }, (_, i) => `t${i} `),
        ),
      );
      return;
    case 'structured':
      streamChunks(res, textChunks(model, ['{"priority":', '"high",', '"tags":["billing"]}']));
      return;
    case 'tooler':
      streamChunks(res, toolCallChunks(model, 'add', ['{"a":', '1,"b":2}']));
      return;
    case 'wrong-tool':
      streamChunks(res, toolCallChunks(model, 'delete_everything', ['{}']));
      return;
    case 'broken':
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the model crashed', type: 'server_error' } }));
      return;
    case 'bad-key':
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.authorization?.slice(7)}` } }));
      return;
    case 'sleeper':
      return; // never answers: the caller's signal must end the call
    default:
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model ${model} not found` } }));
  }
}

export async function startFakeOpenAIServer(): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      requests.push(recorded);
      if (recorded.path !== '/v1/chat/completions') {
        res.writeHead(404);
        res.end();
        return;
      }
      respond(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
