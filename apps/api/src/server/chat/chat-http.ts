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
 * | `GET  /api/chat?flowId=<id>`             | `{ chats, clientOverrides }`: chats newest first, and what a client may set here |
 *
 * The POST body is what DefaultChatTransport sends (`id`, `messages`, `trigger`, `messageId`)
 * plus what a client adds through the transport's `body`: `input` (the rest of the run input),
 * `fixtures`, `backend` — each only when the operator allows it (chat-overrides.ts; else 403).
 * A `__proto__` key anywhere in the body is refused (400). Auth, origin and body-size checks are
 * the server's (http.ts).
 *
 * A chat belongs to the credential that created it (`credentialOwner`: a hash of the bearer
 * token, or `anonymous` without one). Another credential's chat answers exactly as an unknown
 * one does (404; its stream 204), so ids cannot be probed by reading; posting a turn to it is
 * refused with 403, since a create-or-continue POST reveals whether an id is taken anyway.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { checkJsonShape, type Fixtures, formatLongPath, type Json, MAX_DOCUMENT_DEPTH } from '@weft/engine';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { z } from 'zod';
import { ANONYMOUS_OWNER, credentialOwner, ownerOfToken, primaryToken, type ServerTokens } from '../auth.ts';
import { serviceError } from '../routers/runs.ts';
import type { ApiServices } from '../services.ts';
import {
  CHAT_CLIENT_OVERRIDES,
  type ChatClientOverrides,
  forbiddenOverride,
  NO_CHAT_CLIENT_OVERRIDES,
} from './chat-overrides.ts';
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

export interface ChatOptions {
  /** The server's bearer token(s): who owns a chat. Null or absent: none required (`anonymous`). */
  token?: ServerTokens;
  /** What a client may set besides the conversation (default: nothing). */
  clientOverrides?: ChatClientOverrides;
}

export function chatHandler(services: ApiServices, options: ChatOptions = {}) {
  const token = options.token ?? null;
  const allowed = options.clientOverrides ?? NO_CHAT_CLIENT_OVERRIDES;
  const primary = primaryToken(token);
  // Chats from before owners were made under the server's one token (or none): they go to it.
  const chats = new ChatSessions(services, { adoptAs: primary === null ? ANONYMOUS_OWNER : ownerOfToken(primary) });
  const log = services.log.child({ component: 'chat' });

  return async function handle({ req, res, path, body, user }: ChatRequest): Promise<void> {
    try {
      const url = requestUrl(req.url);
      const rest = pathSegments(path.slice(CHAT_PATH.length));
      const owner = credentialOwner(req.headers.authorization, token);
      if (req.method === 'GET' && rest.length === 0) {
        const flowId = url.searchParams.get('flowId') ?? undefined;
        // What the operator allows goes with the list, so a page never sends what is refused.
        const clientOverrides = CHAT_CLIENT_OVERRIDES.filter((name) => allowed.has(name));
        return sendJson(res, 200, { chats: await chats.list(owner, flowId), clientOverrides });
      }
      if (req.method === 'GET' && rest.length === 1) {
        const { owner: _owner, ...chat } = await chats.load(parse(id, rest[0], 'chatId'), owner);
        return sendJson(res, 200, chat);
      }
      // `/api/chat/<chatId>/stream`, or `/api/chat/<flowId>/<chatId>/stream`: where
      // DefaultChatTransport looks by default when its `api` is `/api/chat/<flowId>`.
      if (req.method === 'GET' && (rest.length === 2 || rest.length === 3) && rest.at(-1) === 'stream') {
        const active = await chats.active(parse(id, rest.at(-2), 'chatId'), owner);
        if (!active) {
          res.statusCode = 204;
          res.end();
          return;
        }
        const from = parse(z.coerce.number().int().min(0), url.searchParams.get('from') ?? '0', 'from');
        return stream(res, chats.chunks(active.runId, active.textSteps, from, disconnected(res)));
      }
      if (req.method === 'POST' && rest.length === 1) {
        const raw = jsonOf(body);
        refuseProtoKeys(raw);
        const forbidden = forbiddenOverride(raw, allowed);
        if (forbidden !== undefined) throw new ChatRequestError(403, forbidden);
        const turn = parse(turnBody, raw, 'body');
        const { runId, textSteps } = await chats.send(parse(id, rest[0], 'flowId'), {
          owner,
          chatId: turn.id,
          messages: turn.messages,
          ...(turn.input ? { input: turn.input as Record<string, Json> } : {}),
          ...(turn.fixtures ? { fixtures: turn.fixtures as Fixtures } : {}),
          ...(turn.backend ? { backend: turn.backend } : {}),
        });
        return stream(res, chats.chunks(runId, textSteps, 0, disconnected(res)));
      }
      if (req.method === 'POST' && rest.length === 2 && rest[1] === 'stop')
        return sendJson(res, 200, await chats.stop(parse(id, rest[0], 'chatId'), owner));
      if (req.method === 'POST' && rest.length === 2 && rest[1] === 'approval') {
        const raw = jsonOf(body);
        refuseProtoKeys(raw);
        const decision = parse(approvalBody, raw, 'body');
        return sendJson(res, 200, await chats.decide(parse(id, rest[0], 'chatId'), owner, decision, user));
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

/** The request's URL; a target `new URL` cannot read is the client's mistake (400), not ours. */
function requestUrl(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://x');
  } catch {
    throw new ChatRequestError(400, 'path: not a valid request target');
  }
}

/** The path's segments, percent-decoded; a malformed escape (`%`, `%E0%A4%A`) is a 400 naming it. */
function pathSegments(path: string): string[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw new ChatRequestError(
          400,
          `path: '${segment.slice(0, 100)}' is not valid percent-encoding (a % must start an escape such as %2F of UTF-8 bytes)`,
        );
      }
    });
}

/**
 * 400 for a `__proto__` key anywhere in the body: zod records and spreads would drop it (or
 * make it the prototype) without a word, so the client is told instead.
 */
function refuseProtoKeys(body: unknown): void {
  // As deep as http.ts lets a body be: only the key is this check's business.
  const issue = checkJsonShape(body, MAX_DOCUMENT_DEPTH + 4, { refuseProtoKeys: true });
  if (issue) throw new ChatRequestError(400, `${formatLongPath(issue.path)}: ${issue.message}`);
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
