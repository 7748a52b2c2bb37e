/**
 * The e2e harness: the built editor, served the way the README starts it (`weft serve`, here on
 * a free port with a throw-away WEFT_DATA), driven by Debian's Chromium through playwright-core.
 *
 * - `ensureWebBuild()` builds `apps/web` when `apps/web/dist` is missing or older than its
 *   sources (scripts/ensure-web-build.sh; run once, from the global setup).
 * - `startApp()` spawns `node apps/api/src/cli/main.ts serve --port 0` and reads the printed URL.
 * - `launchBrowser()` starts `/usr/bin/chromium` (or WEFT_CHROMIUM) headless.
 * - `openEditor()` does both and opens a page that records console errors and page errors.
 * Everything is torn down by `close()`, and a child server is killed if the test process exits.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

// For scripts outside e2e/ (bench/debugger.ts), which cannot resolve playwright-core themselves.
export type { Browser, BrowserContext, Page };

export const ROOT = resolve(import.meta.dirname, '../..');
export const WEB_DIR = join(ROOT, 'apps/web');
export const WEB_DIST = process.env.WEFT_WEB_DIST ? resolve(process.env.WEFT_WEB_DIST) : join(WEB_DIR, 'dist');
export const CHROMIUM = process.env.WEFT_CHROMIUM || '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'e2e/screenshots');
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-dev-shm-usage',
];

/** Whether `apps/web` is a buildable app yet (it has a `build` script). */
export function webAppExists(): boolean {
  const file = join(WEB_DIR, 'package.json');
  if (!existsSync(file)) return false;
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, string> };
  return typeof pkg.scripts?.build === 'string';
}

/**
 * Builds the editor when its build is missing or older than its sources (the same check as
 * `scripts/start.sh`: scripts/ensure-web-build.sh). Returns what it found.
 */
export function ensureWebBuild(): 'checked' | 'no-web-app' | 'external' {
  if (process.env.WEFT_WEB_DIST) return 'external';
  if (!webAppExists()) return 'no-web-app';
  const result = spawnSync('bash', [join(ROOT, 'scripts/ensure-web-build.sh')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 300_000,
  });
  if (result.status !== 0) {
    throw new Error(`building the editor failed (pnpm --filter @weft/web build: ${result.error ?? result.status})`);
  }
  const index = join(WEB_DIST, 'index.html');
  if (!existsSync(index)) throw new Error(`the editor build left no ${index}`);
  return 'checked';
}

export interface App {
  /** The editor's URL (`http://127.0.0.1:<port>/`). */
  url: string;
  /** The API's base URL (no trailing slash). */
  api: string;
  dataDir: string;
  /** Everything the server printed (stdout and stderr), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * Starts `weft serve --port 0` on a fresh data folder, as the README does (but on a free port).
 * `dataDir`: serve that folder instead (prepared data, e.g. a benchmark's); it is left in place.
 */
export async function startApp(
  options: { env?: Record<string, string>; timeoutMs?: number; dataDir?: string } = {},
): Promise<App> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'weft-e2e-')));
  const child = spawn(process.execPath, [join(ROOT, 'apps/api/src/cli/main.ts'), 'serve', '--port', '0'], {
    cwd: ROOT,
    env: {
      ...process.env,
      WEFT_DATA: dataDir,
      WEFT_TOKEN: '',
      WEFT_WEB_ORIGIN: '',
      PORT: '',
      DATABASE_URL: '',
      WEFT_LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      children.delete(child);
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    const api = await new Promise<string>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`weft serve printed no URL in ${options.timeoutMs ?? 30_000} ms:\n${out}`)),
        options.timeoutMs ?? 30_000,
      );
      const check = () => {
        const match = /Weft API listening on (http:\/\/\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          done(match[1]!);
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`weft serve exited (${signal ?? code}) before listening:\n${out}`));
      });
    });
    return { url: `${api}/`, api, dataDir, output: () => out, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `${CHROMIUM} is missing: run scripts/ensure-chromium.sh (as root), or set WEFT_CHROMIUM to a Chromium binary`;
}

export async function launchBrowser(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
}

export interface Editor {
  app: App;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Starts the app (with `env` added to the server's environment) and a browser, and opens the
 * editor (waiting for the page's load event).
 */
export async function openEditor(
  options: { viewport?: { width: number; height: number }; env?: Record<string, string> } = {},
): Promise<Editor> {
  const app = await startApp(options.env ? { env: options.env } : {});
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1440, height: 900 },
      deviceScaleFactor: 1,
      colorScheme: 'light',
    });
    context.setDefaultTimeout(15_000);
    context.setDefaultNavigationTimeout(30_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    await page.goto(app.url, { waitUntil: 'load' });
    const opened = browser;
    let closing: Promise<void> | undefined;
    return {
      app,
      browser: opened,
      context,
      page,
      errors,
      close() {
        closing ??= (async () => {
          await opened.close().catch(() => undefined);
          await app.stop();
        })();
        return closing;
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await app.stop();
    throw error;
  }
}
