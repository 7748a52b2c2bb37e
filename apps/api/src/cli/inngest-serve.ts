/**
 * Serving the Inngest function from a CLI command, on loopback, at one stable URL per data
 * folder and Inngest server. The dev server knows an app by its URL: a command serving on a
 * new port would add a second "weft" app, every run would then start once per app, and a
 * parked run would be resumed at the URL of a command long gone. So the first command picks a
 * free port and remembers it in WEFT_DATA/backends/; every later one serves there again.
 * While another command holds the port (it serves the same app from the same store), this one
 * leaves the requests to it and takes the port over as soon as it is free.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import { join } from 'node:path';
import { freePort } from '@weft/adapters/backends';

export interface InngestServing {
  /** http://127.0.0.1:<port>: the app's URL, whether this process or another one listens there. */
  readonly origin: string;
  /** Whether this process listens there now. */
  listening(): boolean;
  close(): Promise<void>;
}

const RETRY_LISTEN_MS = 300;

export async function serveInngestFunction(options: {
  dataDir: string;
  baseUrl: string;
  path: string;
  handler: () => RequestListener | undefined;
  /** Called once this process listens (at once, or after taking the port over). */
  onListening: (origin: string) => void;
}): Promise<InngestServing> {
  const port = await rememberedPort(options.dataDir, options.baseUrl);
  const origin = `http://127.0.0.1:${port}`;
  const server = createServer((req, res) => {
    const handler = options.handler();
    if (handler && new URL(req.url ?? '/', 'http://x').pathname === options.path) handler(req, res);
    else res.writeHead(404).end();
  });
  let listening = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const listen = (): Promise<boolean> =>
    new Promise((resolve, reject) => {
      const onListening = () => {
        server.off('error', onError);
        resolve(true);
      };
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        if (error.code === 'EADDRINUSE') resolve(false);
        else reject(error);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, '127.0.0.1');
    });
  /** Listens now, or retries until the command holding the port lets go of it. */
  const attempt = async (first: boolean) => {
    if (closed) return;
    // The first try reports a real failure (not a busy port) to the caller; retries only retry.
    if (first ? await listen() : await listen().catch(() => false)) {
      listening = true;
      options.onListening(origin);
    } else if (!closed) {
      retry = setTimeout(() => void attempt(false), RETRY_LISTEN_MS);
      retry.unref();
    }
  };
  await attempt(true);
  return {
    origin,
    listening: () => listening,
    close() {
      closed = true;
      clearTimeout(retry);
      if (!listening) return Promise.resolve();
      // A request Inngest has in flight carries a step's result: let it finish, then cut.
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
    },
  };
}

/** The port the CLI serves the function on for this Inngest server; the first caller picks it. */
async function rememberedPort(dataDir: string, baseUrl: string): Promise<number> {
  const dir = join(dataDir, 'backends');
  const file = join(dir, `inngest-app-${baseUrl.replace(/[^a-z0-9]+/gi, '_')}.port`);
  const read = async () => {
    const port = Number((await readFile(file, 'utf8')).trim());
    if (!Number.isInteger(port) || port <= 0) throw new Error(`${file} holds no port`);
    return port;
  };
  try {
    return await read();
  } catch {
    await mkdir(dir, { recursive: true });
    try {
      await writeFile(file, `${await freePort()}\n`, { flag: 'wx' });
    } catch (error) {
      // Another command picked it first (and may still be writing it).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return read();
  }
}
