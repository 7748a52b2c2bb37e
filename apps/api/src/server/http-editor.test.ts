/**
 * The editor over real HTTP: the built web app's static files (caching, ETags, the index.html
 * fallback for editor routes, traversal refused, the Host allow-list) — and `weft serve` as a
 * child process, serving the API and the editor built here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './http.ts';
import { type ApiServices, createServices } from './services.ts';
import { resolveWebDist, safeRelativePath } from './static.ts';

const TOKEN = 'test-token-0123456789';

let dir: string;
let services: ApiServices;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-http-editor-'));
  services = await createServices({ dataDir: dir, env: { NODE_ENV: 'test' } });
});

afterAll(async () => {
  await services?.close();
  await rm(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely in tests
async function json(response: Response): Promise<any> {
  return JSON.parse(await response.text());
}

/** A GET that sends the path as given (fetch would normalize `..` away) and any Host. */
function rawGet(url: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((done, fail) => {
    const req = request(url, { path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('the editor (static files)', () => {
  const INDEX = '<!doctype html><title>Weft</title><div id="root"></div>';
  let web: RunningServer;
  let webGuarded: RunningServer;
  let missing: RunningServer;
  let dist: string;

  beforeAll(async () => {
    dist = join(dir, 'dist');
    await mkdir(join(dist, 'assets'), { recursive: true });
    await writeFile(join(dist, 'index.html'), INDEX);
    await writeFile(join(dist, 'assets', 'index-abc123.js'), 'console.log("weft")');
    await writeFile(join(dist, 'assets', 'index-abc123.css'), 'body{color:red}');
    await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(join(dir, 'secret.txt'), 'top secret');
    await symlink(join(dir, 'secret.txt'), join(dist, 'assets', 'link.txt'));
    web = await startServer({ services, host: '127.0.0.1', port: 0, webDist: dist });
    webGuarded = await startServer({ services, host: '127.0.0.1', port: 0, webDist: dist, token: TOKEN });
    missing = await startServer({ services, host: '127.0.0.1', port: 0, webDist: join(dir, 'no-such-dist') });
  });

  afterAll(async () => {
    await web?.close();
    await webGuarded?.close();
    await missing?.close();
  });

  it('serves index.html at /, revalidated, with no token needed', async () => {
    for (const server of [web, webGuarded]) {
      const response = await fetch(`${server.url}/`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toBe(INDEX);
    }
    // …while the API behind it still wants the token.
    expect((await fetch(`${webGuarded.url}/trpc/models.list`)).status).toBe(401);
  });

  it('serves assets with their content type and a long, immutable cache', async () => {
    const js = await fetch(`${web.url}/assets/index-abc123.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await js.text()).toBe('console.log("weft")');
    const css = await fetch(`${web.url}/assets/index-abc123.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const svg = await fetch(`${web.url}/favicon.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers 304 to a matching ETag, and HEAD without a body', async () => {
    const first = await fetch(`${web.url}/assets/index-abc123.js`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${web.url}/assets/index-abc123.js`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    const head = await fetch(`${web.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(INDEX)));
    expect(await head.text()).toBe('');
  });

  it('falls back to index.html for the editor routes, but not for a missing asset', async () => {
    for (const path of ['/flows/abc', '/runs/r1?tab=events', '/nope', '/health/x', '/trpcx']) {
      const response = await fetch(`${web.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toBe(INDEX);
    }
    const asset = await fetch(`${web.url}/assets/gone-123.js`);
    expect(asset.status).toBe(404);
    expect(asset.headers.get('content-type')).toMatch(/text\/plain/);
    // The API paths are still the API's.
    expect(await json(await fetch(`${web.url}/health`))).toEqual({ ok: true });
    expect((await fetch(`${web.url}/trpc/nothing.here`)).status).toBe(404);
  });

  it('refuses directory traversal, plain or encoded, and symlinks out of the folder', async () => {
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2E%2E%2F%2E%2E%2Fsecret.txt',
      '/..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%252e%252e/secret.txt',
      '/assets/%00.js',
      '/%E0%A4%A',
    ]) {
      const response = await rawGet(web.url, path);
      expect(response.body, path).not.toContain('top secret');
      expect([400, 404, 200], path).toContain(response.status);
      if (response.status === 200) expect(response.body, path).toBe(INDEX);
    }
    expect((await rawGet(web.url, '/../secret.txt')).status).toBe(400);
    expect((await rawGet(web.url, '/%2e%2e/secret.txt')).status).toBe(400);
    const link = await rawGet(web.url, '/assets/link.txt');
    expect(link.status).toBe(404);
    expect(link.body).not.toContain('top secret');
    expect(safeRelativePath('/a/b/../c')).toBeNull();
    expect(safeRelativePath('/a/./c')).toBeNull();
    expect(safeRelativePath('/assets/x.js')).toBe('assets/x.js');
    expect(safeRelativePath('/')).toBe('');
  });

  it('keeps the Host allow-list for the editor too', async () => {
    expect((await rawGet(web.url, '/', { host: 'evil.example' })).status).toBe(403);
    expect((await rawGet(web.url, '/', { host: `localhost:${web.port}` })).status).toBe(200);
  });

  it('says how to build the editor when it is not built', async () => {
    const response = await fetch(`${missing.url}/`);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const body = await response.text();
    expect(body).toMatch(/editor is not built/);
    expect(body).toContain('pnpm --filter @weft/web build');
    expect((await fetch(`${missing.url}/health`)).status).toBe(200);
  });

  it('finds apps/web/dist by default, WEFT_WEB_DIST when set', () => {
    expect(resolveWebDist({})).toBe(resolve(import.meta.dirname, '../../../web/dist'));
    expect(resolveWebDist({ WEFT_WEB_DIST: '/srv/weft-web' })).toBe('/srv/weft-web');
  });
});

// Kept after the editor tests: the child serves (WEFT_WEB_DIST) the dist folder their beforeAll built.
describe('weft serve', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('starts, answers /health, and exits cleanly on SIGTERM', async () => {
    const data = join(dir, 'serve');
    const main = resolve(import.meta.dirname, '../cli/main.ts');
    const proc = spawn(process.execPath, [main, 'serve', '--port', '0'], {
      env: {
        ...process.env,
        WEFT_DATA: data,
        WEFT_TOKEN: '',
        PORT: '',
        DATABASE_URL: '',
        WEFT_LOG_LEVEL: 'warn',
        WEFT_WEB_DIST: join(dir, 'dist'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let out = '';
    let err = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const url = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no URL printed in time\n${out}\n${err}`)), 30_000);
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Weft API listening on (http:\/\/\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          done(match[1]!);
        }
      });
      proc.once('exit', (code) => fail(new Error(`exited with ${code}\n${out}\n${err}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect.poll(() => out, { timeout: 5_000 }).toMatch(/Weft editor: http:\/\/127\.0\.0\.1:\d+\//);
    const response = await fetch(`${url}/health`);
    expect(await json(response)).toEqual({ ok: true });
    expect((await fetch(`${url}/trpc/models.list`)).status).toBe(200);
    expect(await (await fetch(`${url}/flows/x`)).text()).toMatch(/<title>Weft<\/title>/);

    const exited = new Promise<number | null>((done) => proc.once('exit', (code) => done(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(err).toMatch(/Weft API stopped/);
  });
});
