/**
 * The chat endpoints, for the AI SDK's `useChat` with `DefaultChatTransport` (or any client of
 * its UI message stream protocol):
 *
 * | request                                  | answer                                                  |
 * |------------------------------------------|---------------------------------------------------------|
 * | `POST /api/chat/<flowId>`                | starts a run answering the conversation; its stream      |
 * | `GET  /api/chat/<chatId>/stream[?from=k]`| the active run's stream from chunk k (default 0); 204 when none (also under `/api/chat/<flowId>/<chatId>/stream`, the transport's default) |
 * | `POST /api/chat/<chatId>/stop`           | cancels the active run (a closed connection never does) |
 * | `POST /api/chat/<chatId>/approval`       | `{ runId, stepId, approved, comment? }`: decides an approval |
 * | `GET  /api/chat/<chatId>`                | the chat: `{ id, flowId, title, messages, activeRunId }` |
 * | `GET  /api/chat?flowId=<id>`             | `{ chats }`, newest first                               |
 *
 * The POST body is what DefaultChatTransport sends (`id`, `messages`, `trigger`, `messageId`)
 * plus what a client adds through the transport's `body`: `input` (the rest of the run input),
 * `fixtures`, `backend`. Auth, origin and body-size checks are the server's (http.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { Fixtures, Json } from '@weft/engine';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { z } from 'zod';
import { serviceError } from '../routers/runs.ts';
import type { ApiServices } from '../services.ts';
import { ChatRequestError, ChatSessions } from './chat-sessions.ts';

export const CHAT_PATH = '/api/chat';

/** Keep-alive comments on idle streams, so proxies do not cut a run waiting for an approval. */
const KEEP_ALIVE_MS = 15_000;

const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits, and _ . : - only');

const turnBody = z.object({
  id,
  messages: z.array(z.unknown()).min(1).max(10_000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
  input: z.record(z.string(), z.json()).optional(),
  fixtures: z.record(z.string(), z.array(z.json())).optional(),
  backend: z.enum(['inprocess', 'temporal', 'inngest']).optional(),
});

const approvalBody = z.object({
  runId: z.string().min(1).max(200),
  stepId: z.string().min(1).max(500),
  approved: z.boolean(),
  comment: z.string().max(10_000).nullable().optional(),
});

export interface ChatRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  /** The body as text (POST), already size- and depth-checked. */
  body: string | undefined;
  user: string | null;
}

export function chatHandler(services: ApiServices) {
  const chats = new ChatSessions(services);
  const log = services.log.child({ component: 'chat' });

  return async function handle({ req, res, path, body, user }: ChatRequest): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const rest = path.slice(CHAT_PATH.length).split('/').filter(Boolean).map(decodeURIComponent);
    try {
      if (req.method === 'GET' && rest.length === 0) {
        const flowId = url.searchParams.get('flowId') ?? undefined;
        return sendJson(res, 200, { chats: await chats.list(flowId) });
      }
      if (req.method === 'GET' && rest.length === 1)
        return sendJson(res, 200, await chats.load(parse(id, rest[0], 'chatId')));
      // `/api/chat/<chatId>/stream`, or `/api/chat/<flowId>/<chatId>/stream`: where
      // DefaultChatTransport looks by default when its `api` is `/api/chat/<flowId>`.
      if (req.method === 'GET' && (rest.length === 2 || rest.length === 3) && rest.at(-1) === 'stream') {
        const active = await chats.active(parse(id, rest.at(-2), 'chatId'));
        if (!active) {
          res.statusCode = 204;
          res.end();
          return;
        }
        const from = parse(z.coerce.number().int().min(0), url.searchParams.get('from') ?? '0', 'from');
        return stream(res, chats.chunks(active.runId, active.textSteps, from, disconnected(res)));
      }
      if (req.method === 'POST' && rest.length === 1) {
        const turn = parse(turnBody, jsonOf(body), 'body');
        const { runId, textSteps } = await chats.send(parse(id, rest[0], 'flowId'), {
          chatId: turn.id,
          messages: turn.messages,
          ...(turn.input ? { input: turn.input as Record<string, Json> } : {}),
          ...(turn.fixtures ? { fixtures: turn.fixtures as Fixtures } : {}),
          ...(turn.backend ? { backend: turn.backend } : {}),
        });
        return stream(res, chats.chunks(runId, textSteps, 0, disconnected(res)));
      }
      if (req.method === 'POST' && rest.length === 2 && rest[1] === 'stop')
        return sendJson(res, 200, await chats.stop(parse(id, rest[0], 'chatId')));
      if (req.method === 'POST' && rest.length === 2 && rest[1] === 'approval') {
        const decision = parse(approvalBody, jsonOf(body), 'body');
        return sendJson(res, 200, await chats.decide(parse(id, rest[0], 'chatId'), decision, user));
      }
      sendError(res, 404, `no such endpoint: ${req.method} ${path}`);
    } catch (caught) {
      if (caught instanceof ChatRequestError) return sendError(res, caught.status, caught.message);
      const error = serviceError(caught);
      if (error instanceof Error && error.name === 'TRPCError') {
        const status = getHTTPStatusCodeFromError(error as Parameters<typeof getHTTPStatusCodeFromError>[0]);
        if (status < 500) return sendError(res, status, error.message);
      }
      log.error({ err: caught, path }, 'chat request failed');
      if (!res.headersSent) sendError(res, 500, 'internal server error');
      else res.destroy();
    }
  };
}

/**
 * Writes the chunks as the UI message stream protocol's server-sent events (`data: <chunk>`,
 * then `data: [DONE]`) with the SDK's headers. Written straight to the socket rather than through
 * `pipeUIMessageStreamToResponse`'s three web-stream stages: the first token leaves about 2 ms
 * sooner (bench/chat). Idle streams (a run waiting for an approval) get a comment line every
 * KEEP_ALIVE_MS so proxies keep them open.
 */
function stream(res: ServerResponse, chunks: AsyncGenerator<unknown>): void {
  res.writeHead(200, { ...UI_MESSAGE_STREAM_HEADERS, 'cache-control': 'no-store' });
  res.flushHeaders();
  let idle = false;
  const keepAlive = setInterval(() => {
    if (idle) res.write(': keep-alive\n\n');
    idle = true;
  }, KEEP_ALIVE_MS);
  keepAlive.unref();
  void (async () => {
    for await (const chunk of chunks) {
      idle = false;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  })()
    .catch(() => res.destroy())
    .finally(() => clearInterval(keepAlive));
}

/** Aborts when the client goes away: the stream stops following; the run goes on. */
function disconnected(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  return controller.signal;
}

function jsonOf(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    throw new ChatRequestError(400, 'body: not JSON');
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = [what === 'body' ? undefined : what, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.');
  throw new ChatRequestError(400, `${where || what}: ${issue?.message ?? 'invalid'}`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, status } });
}
