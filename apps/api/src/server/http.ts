/**
 * The API over HTTP: a plain `node:http` server with `GET /health` (open), tRPC at `/trpc`
 * (queries, mutations and SSE subscriptions), and the built editor for every other GET
 * (`static.ts`: files from `apps/web/dist` or `WEFT_WEB_DIST`, else `index.html`). Any other
 * method elsewhere: 404, as JSON.
 *
 * - Auth: `Authorization: Bearer <token>` is checked (constant time) into the context; the
 *   `procedure` middleware refuses when a token is configured and the request lacks it.
 * - CORS: only `webOrigin` gets `Access-Control-Allow-Origin` (and preflight answers). Without
 *   it the editor is same-origin (served by this server) and no CORS header is ever sent. A
 *   request to `/trpc` that a browser sends from any other origin is refused with 403, so a web
 *   page cannot drive a token-less loopback server with "simple" cross-site requests.
 * - Host: on a loopback address without a token, only `localhost`, `127.0.0.1` and `[::1]` with
 *   the server's port are accepted as the `Host` header (403 otherwise). That closes DNS
 *   rebinding: a web page whose domain re-resolves to 127.0.0.1 is same-origin with itself, so
 *   the Origin check cannot stop it, but its requests carry its own domain as Host. With a token
 *   any Host is fine (the page cannot know the token).
 * - Body limit: `maxBodyBytes` (default 1 MiB + 64 KiB of envelope). A larger declared body is
 *   refused with 413 before it is read; a chunked one with the same 413 once it grows past it.
 * - JSON nested deeper than a flow document may be (1000 levels) is refused with 400 naming
 *   where, before anything parses it (JSON.parse itself overflows the stack a few levels on).
 * - Static files need no token (the token is entered in the editor); the Host allow-list applies
 *   to them as to everything else.
 * - `/api/chat…`: the chat endpoints for the AI SDK's `useChat` (chat/chat-http.ts), under the
 *   same token, origin, CORS and body checks as tRPC.
 * - Every request is logged (method, path, status, ms) — never its headers or query.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyRouter } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { INNGEST_SERVE_PATH, type InngestBackend } from '@weft/adapters/inngest';
import { checkJsonTextDepth, formatLongPath, MAX_DOCUMENT_DEPTH } from '@weft/engine';
import { checkBearer, isLoopback, type ServerTokens, userLabel } from './auth.ts';
import { batchLimits, limitBatch } from './batch-limits.ts';
import { CHAT_PATH, chatHandler } from './chat/chat-http.ts';
import type { ChatClientOverrides } from './chat/chat-overrides.ts';
import type { ApiContext } from './context.ts';
import { appRouter } from './router.ts';
import type { ApiServices } from './services.ts';
import { resolveWebDist, serveStatic } from './static.ts';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024 + 64 * 1024;

export interface ServerOptions {
  services: ApiServices;
  port?: number;
  host?: string;
  /** Required by every procedure when set (one token, or several: `WEFT_TOKENS`, auth.ts). */
  token?: ServerTokens;
  /** The one origin (e.g. `http://localhost:5173`) allowed to call the API from a browser. */
  webOrigin?: string | null;
  maxBodyBytes?: number;
  /** How long in-flight requests (and live streams) get on close before they are cut. */
  closeGraceMs?: number;
  /** Another router over the same context (default: the app's). */
  router?: AnyRouter;
  /** The built editor's folder (default: `WEFT_WEB_DIST`, else `apps/web/dist`). */
  webDist?: string;
  /** What a chat client may set besides the conversation (chat/chat-overrides.ts; default none). */
  chatClientOverrides?: ChatClientOverrides;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = 'authorization, content-type, x-weft-user, trpc-accept, last-event-id';

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { services } = options;
  const log = services.log.child({ component: 'http' });
  const token = options.token || null;
  const webOrigin = options.webOrigin ? new URL(options.webOrigin).origin : null;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const webDist = options.webDist ?? resolveWebDist();
  // Calls per tRPC batch and bytes of its answer (batch-limits.ts); a bad value stops the start.
  const batch = batchLimits();
  /** The `Host` headers accepted (lower case), or null for any; set once listening. */
  let allowedHosts: Set<string> | null = null;
  let port = 0;

  const trpc = createHTTPHandler({
    router: options.router ?? appRouter,
    basePath: '/trpc/',
    maxBodySize: maxBodyBytes,
    createContext: ({ req }): ApiContext => ({
      services,
      auth: checkBearer(req.headers.authorization, token),
      user: userLabel(req.headers['x-weft-user']),
    }),
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') log.error({ err: error, procedure: path }, 'procedure failed');
    },
  });

  const chat = chatHandler(services, {
    token,
    ...(options.chatClientOverrides ? { clientOverrides: options.chatClientOverrides } : {}),
  });

  const server = createServer((req, res) => {
    const started = performance.now();
    const path = pathOf(req);
    res.on('close', () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const entry = {
        method: req.method,
        path,
        status: res.statusCode,
        ms,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      if (res.statusCode >= 500) log.error(entry, 'request');
      else log.info(entry, 'request');
    });
    try {
      route(req, res, path);
    } catch (error) {
      log.error({ err: error, method: req.method, path }, 'request failed');
      if (!res.headersSent) sendError(res, 500, 'INTERNAL_SERVER_ERROR', 'internal server error');
      else res.destroy();
    }
  });

  function route(req: IncomingMessage, res: ServerResponse, path: string): void {
    if (allowedHosts !== null && !allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
      const given = req.headers.host === undefined ? 'no Host header' : `Host ${JSON.stringify(req.headers.host)}`;
      sendError(
        res,
        403,
        'FORBIDDEN',
        `${given} is not allowed: this server listens on loopback without a token and answers only ` +
          `localhost, 127.0.0.1 or [::1] on port ${port} (set WEFT_TOKEN to accept other host names)`,
      );
      return;
    }
    if (path === INNGEST_SERVE_PATH) {
      // Inngest calls the function here. No bearer token (Inngest cannot send one): a real
      // Inngest server signs its requests and the SDK checks them with INNGEST_SIGNING_KEY.
      const handler = (services.backends.get('inngest') as InngestBackend | undefined)?.handler;
      if (handler) handler(req, res);
      else
        sendError(res, 404, 'NOT_FOUND', 'the Inngest backend is not configured (set INNGEST_DEV or INNGEST_BASE_URL)');
      return;
    }
    if (path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        sendError(res, 405, 'METHOD_NOT_SUPPORTED', `${req.method} is not supported on /health`);
        return;
      }
      applyCors(req, res);
      sendJson(res, 200, { ok: true });
      return;
    }
    const isChat = path === CHAT_PATH || path.startsWith(`${CHAT_PATH}/`);
    if (path !== '/trpc' && !path.startsWith('/trpc/') && !isChat) {
      if (req.method === 'GET' || req.method === 'HEAD') {
        serveStatic(req, res, path, webDist).catch((error: unknown) => {
          log.error({ err: error, path }, 'serving the editor failed');
          if (!res.headersSent) sendError(res, 500, 'INTERNAL_SERVER_ERROR', 'internal server error');
          else res.destroy();
        });
        return;
      }
      sendError(res, 404, 'NOT_FOUND', `no such endpoint: ${req.method} ${path}`);
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isAllowedOrigin(req, origin)) {
      sendError(res, 403, 'FORBIDDEN', `requests from origin ${origin} are not allowed`);
      return;
    }
    applyCors(req, res);
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
      res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
      res.setHeader('access-control-max-age', '600');
      res.end();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) {
      // Refuse before reading; the connection is closed after the answer, so whatever the
      // client still sends is dropped rather than parsed.
      res.setHeader('connection', 'close');
      sendError(res, 413, 'PAYLOAD_TOO_LARGE', `the request body is ${declared} bytes; the limit is ${maxBodyBytes}`);
      req.resume();
      return;
    }
    if (isChat) {
      routeChat(req, res, path);
      return;
    }
    if (!limitBatch(req, res, path, batch, (status, code, message) => sendError(res, status, code, message))) return;
    if (req.method === 'POST') {
      withBody(req, res, path, (text) => {
        // tRPC parses a body it is handed instead of reading the stream again.
        (req as IncomingMessage & { body?: string }).body = text;
        trpc(req, res);
      });
      return;
    }
    const input = new URL(req.url ?? '/', 'http://x').searchParams.get('input');
    if (input !== null && refuseDeepJson(res, input, 'the input parameter')) return;
    trpc(req, res);
  }

  /** The chat endpoints (chat/chat-http.ts): the same token as tRPC, then the body if any. */
  function routeChat(req: IncomingMessage, res: ServerResponse, path: string): void {
    const auth = checkBearer(req.headers.authorization, token);
    if (!auth.valid) {
      sendError(res, 401, 'UNAUTHORIZED', auth.provided ? 'the token is not valid' : 'a bearer token is required');
      return;
    }
    const user = userLabel(req.headers['x-weft-user']);
    const handle = (body: string | undefined) =>
      chat({ req, res, path, body, user }).catch((error: unknown) => {
        log.error({ err: error, path }, 'chat request failed');
        if (!res.headersSent) sendError(res, 500, 'INTERNAL_SERVER_ERROR', 'internal server error');
        else res.destroy();
      });
    if (req.method === 'POST') withBody(req, res, path, (text) => void handle(text));
    else void handle(undefined);
  }

  /**
   * Reads a POST body within `maxBodyBytes` (413 past it, the rest dropped) and refuses JSON
   * nested too deep, then hands the text on: the one way tRPC and the chat endpoints get bodies.
   */
  function withBody(req: IncomingMessage, res: ServerResponse, path: string, then: (text: string) => void): void {
    readBody(req, maxBodyBytes).then(
      (text) => {
        if (text === undefined) {
          res.setHeader('connection', 'close');
          sendError(
            res,
            413,
            'PAYLOAD_TOO_LARGE',
            `the request body is larger than the limit of ${maxBodyBytes} bytes`,
          );
          return;
        }
        if (refuseDeepJson(res, text, 'the request body')) return;
        then(text);
      },
      (error: unknown) => {
        log.warn({ err: error, path }, 'reading the request body failed');
        res.destroy();
      },
    );
  }

  /**
   * JSON deep enough to overflow JSON.parse answers "Maximum call stack size exceeded", naming
   * nothing; this check is iterative and names where. The envelope (tRPC batches) adds a few levels.
   */
  function refuseDeepJson(res: ServerResponse, text: string, what: string): boolean {
    const issue = checkJsonTextDepth(text, MAX_DOCUMENT_DEPTH + 4);
    if (!issue) return false;
    sendError(res, 400, 'BAD_REQUEST', `${what} is ${issue.message}, at ${formatLongPath(issue.path)}`);
    return true;
  }

  /** Same-origin requests (the editor served from here), and the configured web origin. */
  function isAllowedOrigin(req: IncomingMessage, origin: string): boolean {
    if (webOrigin !== null && origin === webOrigin) return true;
    const host = req.headers.host;
    return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
  }

  function applyCors(req: IncomingMessage, res: ServerResponse): void {
    if (webOrigin === null) return;
    res.setHeader('vary', 'Origin');
    if (req.headers.origin === webOrigin) {
      res.setHeader('access-control-allow-origin', webOrigin);
      res.setHeader('access-control-allow-credentials', 'true');
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  port = address.port;
  if (token === null && isLoopback(address.address)) {
    const names = ['localhost', '127.0.0.1', '[::1]', host.toLowerCase()];
    allowedHosts = new Set(names.map((name) => `${name}:${port}`));
    // A client may leave out the default port.
    if (port === 80) for (const name of names) allowedHosts.add(name);
    // A dev proxy in front of the web app may pass the web origin's (loopback) host on.
    if (webOrigin !== null) {
      const web = new URL(webOrigin);
      if (isLoopback(web.hostname)) allowedHosts.add(web.host.toLowerCase());
    }
  }

  // Tell the Inngest server where this process serves the function.
  const inngest = services.backends.get('inngest') as InngestBackend | undefined;
  if (inngest?.handler)
    await inngest
      .register(url.replace('://0.0.0.0:', '://127.0.0.1:'))
      .catch((error: unknown) => log.error({ err: error }, 'syncing with the Inngest server failed'));

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Live event streams never end by themselves: give in-flight work a moment, then cut.
        const timer = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 1_000);
        timer.unref();
      });
      return closing;
    },
  };
}

/** The body as text, or undefined once it grows past `limit` bytes (the rest is then dropped). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function pathOf(req: IncomingMessage): string {
  const raw = req.url ?? '/';
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

/** tRPC's error shape, so a tRPC client reads these like its own. */
const JSON_RPC_CODES: Record<string, number> = {
  BAD_REQUEST: -32600,
  NOT_FOUND: -32004,
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  METHOD_NOT_SUPPORTED: -32005,
  PAYLOAD_TOO_LARGE: -32013,
  INTERNAL_SERVER_ERROR: -32603,
};

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, {
    error: { message, code: JSON_RPC_CODES[code] ?? -32603, data: { code, httpStatus: status } },
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
