/**
 * The built editor (`apps/web/dist`, Vite's output) served by the API server, so one process is
 * the whole app.
 *
 * - `GET /` and any GET that names no file answer `index.html` (the editor routes in the
 *   browser); a missing file under `/assets/` is a plain 404 instead (a stale chunk must not be
 *   answered with HTML).
 * - Files under `/assets/` carry content hashes in their names: cached for a year, immutable.
 *   `index.html` and other top-level files are revalidated (`no-cache`, with an ETag).
 * - Paths are decoded once and must stay inside the dist folder: `..` segments (plain or
 *   percent-encoded), backslashes, NUL bytes and symlinks leading outside are refused with 400/404.
 * - The dist folder is looked up on each request, so building the editor while `weft serve`
 *   runs needs no restart. Without it, `/` answers a small page that says how to build it.
 */
import { createReadStream, type Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

/** `WEFT_WEB_DIST`, else `apps/web/dist` of this repository. */
export function resolveWebDist(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.WEFT_WEB_DIST?.trim();
  if (configured) return resolve(configured);
  return resolve(import.meta.dirname, '../../../web/dist');
}

export const BUILD_COMMAND = 'pnpm --filter @weft/web build';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Answers a GET or HEAD for the editor from `dist`. Resolves once the answer is sent (or its
 * stream is under way); never rejects for a client's mistake.
 */
export async function serveStatic(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  dist: string,
): Promise<void> {
  const relative = safeRelativePath(path);
  if (relative === null) {
    sendText(res, 400, 'bad path');
    return;
  }
  const root = await realpath(dist).catch(() => null);
  const index = root === null ? null : await fileStats(resolve(root, 'index.html'));
  if (root === null || index === null) {
    sendNotBuilt(req, res, dist);
    return;
  }

  if (relative !== '') {
    const candidate = resolve(root, relative);
    const real = await realpath(candidate).catch(() => null);
    if (real?.startsWith(root + sep)) {
      const stats = await fileStats(real);
      if (stats !== null) {
        const cache = relative.startsWith('assets/') ? IMMUTABLE : 'no-cache';
        sendFile(req, res, real, stats, cache);
        return;
      }
    }
    if (relative.startsWith('assets/')) {
      sendText(res, 404, `no such file: /${relative}`);
      return;
    }
  }
  // The single-page app: every other path is one of the editor's own routes.
  sendFile(req, res, resolve(root, 'index.html'), index, 'no-cache');
}

/**
 * The URL path as a relative file path (no leading slash; '' for the root), or null when it
 * could reach outside the root: `..` or `.` segments, backslashes, NUL, or bad percent-encoding.
 */
export function safeRelativePath(path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (!decoded.startsWith('/') || decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '..' || segment === '.')) return null;
  return segments.join('/');
}

async function fileStats(file: string): Promise<Stats | null> {
  const stats = await stat(file).catch(() => null);
  return stats?.isFile() ? stats : null;
}

function sendFile(req: IncomingMessage, res: ServerResponse, file: string, stats: Stats, cache: string): void {
  const etag = `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
  res.setHeader('content-type', contentTypeOf(file));
  res.setHeader('cache-control', cache);
  res.setHeader('etag', etag);
  res.setHeader('last-modified', stats.mtime.toUTCString());
  res.setHeader('x-content-type-options', 'nosniff');
  if (file.endsWith('.html')) {
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('referrer-policy', 'no-referrer');
  }
  if (req.headers['if-none-match'] === etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('content-length', stats.size);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

function sendNotBuilt(req: IncomingMessage, res: ServerResponse, dist: string): void {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Weft — editor not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}
code{background:#f2f2f2;padding:.1em .3em;border-radius:3px}</style></head>
<body>
<h1>Weft</h1>
<p>The API is running, but the browser editor is not built: there is no <code>index.html</code> in
<code>${escapeHtml(dist)}</code>.</p>
<p>Build it with <code>${BUILD_COMMAND}</code> (or point <code>WEFT_WEB_DIST</code> at a build), then reload
this page — no restart needed.</p>
<p>The API answers at <code>/trpc</code>; <code>/health</code> says whether it is up.</p>
</body>
</html>
`;
  res.statusCode = 503;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(html));
  res.end(req.method === 'HEAD' ? undefined : html);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(text);
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );
}
