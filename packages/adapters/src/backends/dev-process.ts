/**
 * A real engine's dev server as a child process of a test or benchmark: started with its
 * stderr tail kept for errors, waited for until a readiness probe answers (or it exits), and
 * stopped with SIGTERM, then SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface DevProcess {
  stop(): Promise<void>;
}

/** A free TCP port on loopback (free when asked: the caller binds it soon after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `start` (which picks its ports with freePort) again with fresh ports when the server
 * reports a port taken: a port is free when asked, but another process may bind it before the
 * server does (the machine's outbound connections draw from the same ephemeral range).
 */
export async function withFreshPortsOnClash<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !String(error).includes('address already in use')) throw error;
    }
  }
}

/**
 * Starts `binary args` and resolves once `ready()` answers without throwing; rejects (and stops
 * the process) when it exits first or `timeoutMs` passes, with what it said on stderr.
 */
export async function startDevProcess(options: {
  name: string;
  binary: string;
  args: string[];
  ready: () => Promise<void>;
  timeoutMs: number;
}): Promise<DevProcess> {
  const child = spawn(options.binary, options.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone: number | null | undefined;
  void exited.then((code) => {
    gone = code;
  });
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  try {
    for (;;) {
      if (gone !== undefined) throw new Error(`${options.name} exited (${gone}) while starting: ${stderr}`);
      try {
        await options.ready();
        break;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline)
        throw new Error(`${options.name} not ready within ${options.timeoutMs} ms: ${String(last)} ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop(child, exited);
    throw error;
  }
  return { stop: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
