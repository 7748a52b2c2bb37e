/**
 * What a model call downloads (file and image URLs in its messages) goes through the http step's
 * guard: a name resolving to loopback and a public URL redirecting to one are refused before
 * anything connects, a huge body is cut at the cap without being held, a slow one times out.
 *
 * Everything stays on loopback. Names are stubbed for the whole process, so every fetch in it —
 * the guard's lookup and Node's own — sees `files.example` at 127.0.0.1; the "public" first hop
 * of a redirect is answered in memory and never touches the network.
 */
import dns from 'node:dns';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JsonObject, type ModelTurnInput, type ModelTurnOutput, NonRetryableError } from '@weft/engine';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { textStream } from '../../test-support/text-stream.ts';
import { createExecutorRegistry, type ExecutorOptions } from './index.ts';

// The resolver seam of http-private-network.test.ts: the guard resolves through node:dns/promises.
const names = vi.hoisted(() => new Map<string, string>());
vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  const lookup = (host: string, options: object) => {
    const address = names.get(host);
    if (address !== undefined) return Promise.resolve([{ address, family: 4 }]);
    return real.lookup(host, options);
  };
  return { ...real, lookup, default: { ...real, lookup } };
});

// A fake public first hop: fetching a URL held here answers 302 to its location, no network.
const fakeRedirects = vi.hoisted(() => new Map<string, string>());
const redirectFor = (input: unknown) => fakeRedirects.get(input instanceof Request ? input.url : String(input));
vi.mock('undici', async (importOriginal) => {
  const real = await importOriginal<typeof import('undici')>();
  const fetch: typeof real.fetch = (input, init) => {
    const location = redirectFor(input);
    if (location === undefined) return real.fetch(input, init);
    return Promise.resolve(new real.Response(null, { status: 302, headers: { location } }));
  };
  return { ...real, fetch };
});

// The same names for Node's own sockets (net.connect's lookup), and the same fake first hop for
// the global fetch: whichever way a download connects, it sees what the guard sees.
const realLookup = dns.lookup;
const realFetch = globalThis.fetch;
beforeAll(() => {
  dns.lookup = ((host: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    const address = names.get(host);
    if (address === undefined) return (realLookup as (...args: unknown[]) => void)(host, options, callback);
    process.nextTick(() => (all ? done(null, [{ address, family: 4 }]) : done(null, address, 4)));
  }) as typeof dns.lookup;
  globalThis.fetch = (input, init) => {
    const location = redirectFor(input);
    if (location === undefined) return realFetch(input, init);
    return Promise.resolve(new Response(null, { status: 302, headers: { location } }));
  };
  names.set('files.example', '127.0.0.1');
});
afterAll(() => {
  dns.lookup = realLookup;
  globalThis.fetch = realFetch;
  names.clear();
});

/** A loopback file server: counts requests; `answer` may write its own response. */
async function startFileServer(answer?: (path: string, res: ServerResponse) => boolean) {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(req.url ?? '');
    if (answer?.(req.url ?? '', res)) return;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('quarterly numbers');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    /** The server by name: `files.example` resolves to 127.0.0.1 here. */
    byName: `http://files.example:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

type FilePartKind = 'file' | 'image';
const filePart = (kind: FilePartKind, url: string): JsonObject =>
  kind === 'file' ? { type: 'file', data: url, mediaType: 'text/plain' } : { type: 'image', image: url };

/** A model that takes no URL as is (so the SDK downloads every one) and records what it was sent. */
function fileReader() {
  return new MockLanguageModelV4({
    supportedUrls: {},
    doStream: async () => textStream('read it', { input: 1, output: 2 }),
  });
}

async function turnWithFile(url: string, options: ExecutorOptions = {}, kind: FilePartKind = 'file') {
  const model = fileReader();
  const input: ModelTurnInput = {
    model: 'probe:files',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise this.' }, filePart(kind, url)] }],
    tools: [],
    stepId: 'ask',
    turn: 1,
  };
  const registry = createExecutorRegistry({ env: {}, ...options, models: { 'probe:files': model } });
  const output = (await registry.execute(
    { kind: 'model-turn', input },
    { signal: new AbortController().signal, runId: 'run-1', stepId: 'ask/llm#1', emitDelta: () => {} },
  )) as unknown as ModelTurnOutput;
  return { output, model };
}

/** The turn's error; `undefined` when it succeeded, so a test can first check what was reached. */
async function outcome(promise: Promise<unknown>): Promise<Error | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await outcome(promise);
  if (error === undefined) throw new Error('expected the model turn to fail');
  return error;
}

/** The bytes of the file part the model was sent (the SDK inlines what it downloaded). */
function sentFileText(model: MockLanguageModelV4): string {
  const content = model.doStreamCalls[0]?.prompt[0]?.content;
  const part = Array.isArray(content) ? content.find((item) => item.type === 'file') : undefined;
  if (part?.type !== 'file') throw new Error('the model was sent no file part');
  const data = part.data as { type: string; data?: unknown };
  if (data.type !== 'data' || !(data.data instanceof Uint8Array)) {
    throw new Error(`the model was sent the file as ${JSON.stringify(data).slice(0, 120)}, not its bytes`);
  }
  return new TextDecoder().decode(data.data);
}

const allowPrivate: ExecutorOptions = { http: { allowPrivateNetwork: true } };

describe('model-call downloads', () => {
  it.each<FilePartKind>(['file', 'image'])('download a %s part the model cannot take as a URL', async (kind) => {
    const target = await startFileServer();
    try {
      const { output, model } = await turnWithFile(`${target.byName}/report.txt`, allowPrivate, kind);
      expect(output.text).toBe('read it');
      expect(target.received).toEqual(['/report.txt']);
      expect(sentFileText(model)).toBe('quarterly numbers');
    } finally {
      await target.close();
    }
  });

  it.each<FilePartKind>(['file', 'image'])(
    'refuse a %s part whose host name resolves to loopback: no request reaches it',
    async (kind) => {
      const target = await startFileServer();
      try {
        const error = await outcome(turnWithFile(`${target.byName}/secret?token=abc`, {}, kind));
        expect(target.received).toEqual([]);
        expect(error).toBeInstanceOf(NonRetryableError);
        expect(error?.message).toBe(
          `model call to probe:files refused a file from files.example:${target.port}: files.example resolves to ` +
            '127.0.0.1, a loopback/private/link-local address. Set WEFT_HTTP_ALLOW_PRIVATE=1 (or ' +
            'http.allowPrivateNetwork) to allow private network addresses',
        );
      } finally {
        await target.close();
      }
    },
  );

  it.each([
    ['a name', (port: number) => `http://files.example:${port}/secret`, 'files\\.example'],
    ['an address', (port: number) => `http://127.0.0.1:${port}/secret`, '127\\.0\\.0\\.1'],
  ])(
    'check every redirect hop: a public URL redirecting to loopback by %s reaches nothing',
    async (_what, location, host) => {
      const target = await startFileServer();
      fakeRedirects.set('http://public.example/chart.png', location(target.port));
      try {
        const error = await outcome(turnWithFile('http://public.example/chart.png'));
        expect(target.received).toEqual([]);
        expect(error).toBeInstanceOf(NonRetryableError);
        expect(error?.message).toMatch(
          new RegExp(
            `^model call to probe:files refused a file from public\\.example \\(redirected to ${host}:${target.port}\\): ` +
              `${host} resolves to 127\\.0\\.0\\.1, a loopback/private`,
          ),
        );
      } finally {
        fakeRedirects.clear();
        await target.close();
      }
    },
  );

  it('cut a 200 MB body at the 5 MB cap as it streams: RSS grows by less than 50 MB', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let sent = 0;
    const target = await startFileServer((path, res) => {
      if (path !== '/huge.bin') return false;
      // No content-length: only the streamed size can give it away.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const write = () => {
        while (sent < 200 * chunk.length && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      res.on('error', () => {});
      write();
      return true;
    });
    try {
      await turnWithFile(`${target.byName}/warm-up.txt`, allowPrivate); // loads the code paths first
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 5);
      let error: Error | undefined;
      try {
        error = await outcome(turnWithFile(`${target.byName}/huge.bin`, allowPrivate));
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage.rss());
      expect((peak - before) / (1024 * 1024), 'RSS growth in MB').toBeLessThan(50);
      expect(sent / chunk.length, 'MB the server sent').toBeLessThan(100); // stopped well before the end
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error?.message).toBe(
        `model call to probe:files refused a file from files.example:${target.port}: it is larger than the 5 MB ` +
          'limit per file (downloads.maxBytes, WEFT_DOWNLOAD_MAX_BYTES)',
      );
    } finally {
      await target.close();
    }
  });

  it('take the cap from WEFT_DOWNLOAD_MAX_BYTES, and all files of a call together from maxTotalBytes', async () => {
    const target = await startFileServer((path, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('y'.repeat(path === '/big.txt' ? 2000 : 600));
      return true;
    });
    try {
      const viaEnv = await failure(
        turnWithFile(`${target.byName}/big.txt`, { env: { WEFT_DOWNLOAD_MAX_BYTES: '1000' }, ...allowPrivate }),
      );
      expect(viaEnv.message).toMatch(
        /: it is larger than the 1000 bytes limit per file \(downloads\.maxBytes, WEFT_DOWNLOAD_MAX_BYTES\)$/,
      );
      const { model } = await turnWithFile(`${target.byName}/small.txt`, {
        env: { WEFT_DOWNLOAD_MAX_BYTES: '1000' },
        ...allowPrivate,
      });
      expect(sentFileText(model)).toHaveLength(600);

      const two = createExecutorRegistry({
        env: {},
        ...allowPrivate,
        downloads: { maxBytes: 1000, maxTotalBytes: 1000 },
        models: { 'probe:files': fileReader() },
      });
      const together = await failure(
        two.execute(
          {
            kind: 'model-turn',
            input: {
              model: 'probe:files',
              messages: [
                {
                  role: 'user',
                  content: [filePart('file', `${target.byName}/a.txt`), filePart('file', `${target.byName}/b.txt`)],
                },
              ],
              tools: [],
              stepId: 'ask',
              turn: 1,
            },
          },
          { signal: new AbortController().signal, runId: 'run-1', stepId: 'ask/llm#1', emitDelta: () => {} },
        ),
      );
      expect(together).toBeInstanceOf(NonRetryableError);
      expect(together.message).toMatch(/together are larger than the 1000 bytes limit \(downloads\.maxTotalBytes\)$/);
    } finally {
      await target.close();
    }
  });

  it('give up on a download that takes longer than downloads.timeoutMs, naming the host and the limit', async () => {
    const target = await startFileServer(() => true); // never answers
    try {
      const error = await failure(
        turnWithFile(`${target.byName}/slow.txt`, { ...allowPrivate, downloads: { timeoutMs: 200 } }),
      );
      expect(target.received).toEqual(['/slow.txt']);
      expect(error).toBeInstanceOf(NonRetryableError);
      expect(error.message).toBe(
        `model call to probe:files refused a file from files.example:${target.port}: it took longer than the ` +
          '200 ms limit (downloads.timeoutMs, WEFT_DOWNLOAD_TIMEOUT_MS)',
      );
    } finally {
      await target.close();
    }
  });

  it.each([
    [404, true],
    [503, false],
  ])('fail on an HTTP %i from the file server, retryably only when a retry may help', async (status, final) => {
    const target = await startFileServer((_path, res) => {
      res.writeHead(status);
      res.end();
      return true;
    });
    try {
      const error = await failure(turnWithFile(`${target.byName}/gone.txt`, allowPrivate));
      expect(error.message).toBe(
        `model call to probe:files could not download a file from files.example:${target.port}: HTTP ${status}`,
      );
      expect(error instanceof NonRetryableError).toBe(final);
    } finally {
      await target.close();
    }
  });

  it('refuse a bad WEFT_DOWNLOAD_MAX_BYTES when the registry is made', () => {
    expect(() => createExecutorRegistry({ env: { WEFT_DOWNLOAD_MAX_BYTES: '5MB' } })).toThrow(
      'WEFT_DOWNLOAD_MAX_BYTES must be a positive whole number, got "5MB"',
    );
  });
});
