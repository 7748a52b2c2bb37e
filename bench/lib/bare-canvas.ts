/**
 * The bare React Flow page (bench/editor-bare/) built with the editor's own Vite and packages
 * (production mode, no network) and served from a folder by a small static server, with the
 * bench's flow documents beside it.
 */
import { createReadStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, WEB_DIR } from '../../e2e/support/app.ts';

const BARE_DIR = join(ROOT, 'bench/editor-bare');
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
};

export interface BareCanvas {
  url: string;
  /**
   * Puts a flow document beside the page; returns the page's address for it, opened at `view`
   * (else fitted) with the canvas `pane` big (else the whole window).
   */
  addFlow(name: string, doc: unknown, view?: string, pane?: { width: number; height: number }): string;
  close(): Promise<void>;
}

interface ViteLike {
  build(config: Record<string, unknown>): Promise<unknown>;
}

export async function startBareCanvas(): Promise<BareCanvas> {
  const out = mkdtempSync(join(tmpdir(), 'weft-bench-bare-'));
  const requireFromWeb = createRequire(join(WEB_DIR, 'package.json'));
  const vite = (await import(pathToFileURL(requireFromWeb.resolve('vite')).href)) as ViteLike;
  // Bare imports in the page resolve as the editor's would: from apps/web's node_modules.
  const fromWeb = join(WEB_DIR, 'src/main.tsx');
  await vite.build({
    configFile: false,
    root: BARE_DIR,
    base: './',
    mode: 'production',
    logLevel: 'error',
    build: { outDir: out, emptyOutDir: true, chunkSizeWarningLimit: 5000 },
    plugins: [
      {
        name: 'resolve-from-apps-web',
        enforce: 'pre',
        resolveId(
          this: { resolve(source: string, importer: string, options: object): Promise<unknown> },
          source: string,
          importer: string | undefined,
          options: object,
        ) {
          if (!importer?.startsWith(BARE_DIR) || /^[./\0]/.test(source)) return null;
          return this.resolve(source, fromWeb, { ...options, skipSelf: true });
        },
      },
    ],
  });
  const server: Server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const file = join(out, path === '/' ? 'index.html' : path);
    if (!file.startsWith(out) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  return {
    url,
    addFlow(name, doc, view, pane) {
      writeFileSync(join(out, `${name}.json`), JSON.stringify(doc));
      const size = pane ? `&pane=${pane.width}x${pane.height}` : '';
      return `${url}?flow=${encodeURIComponent(`./${name}.json`)}${view ? `&view=${view}` : ''}${size}`;
    },
    async close() {
      await new Promise<void>((done) => server.close(() => done()));
      rmSync(out, { recursive: true, force: true });
    },
  };
}
