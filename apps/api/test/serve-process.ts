/**
 * A real `weft serve` child process for tests that need the server as a user runs it (its own
 * process, to kill or run beside another): started on a free port, its URL read from its
 * "listening on" line, and a typed tRPC client for it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { EventSource } from 'eventsource';
import type { AppRouter } from '../src/server/router.ts';
import { MAIN } from './helpers.ts';

export interface Server {
  name: string;
  child: ChildProcess;
  url: string;
  dir: string;
  stderr: () => string;
}

export interface ServeOptions {
  /** PostgreSQL URL; without it the server keeps SQLite under `dataDir`. */
  databaseUrl?: string;
  /** WEFT_DATA; a new temp folder when left out (removed by shutdown). */
  dataDir?: string;
  env?: Record<string, string>;
  /** A fixed port (a restarted server comes back where it was); 0 or absent: any free port. */
  port?: number;
}

export async function serve(name: string, options: ServeOptions = {}): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), `weft-serve-${name}-`));
  const env: Record<string, string | undefined> = { ...process.env };
  // Nothing of the outer environment decides where this server keeps data or runs flows.
  for (const key of ['WEFT_TOKEN', 'PORT', 'WEFT_WEB_ORIGIN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DATABASE_URL'])
    delete env[key];
  for (const key of Object.keys(env)) if (key.startsWith('TEMPORAL_') || key.startsWith('INNGEST_')) delete env[key];
  Object.assign(env, {
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    WEFT_DATA: options.dataDir ?? join(dir, 'data'),
    NODE_ENV: 'test',
    WEFT_LOG_LEVEL: 'warn',
    NO_COLOR: '1',
    ...options.env,
  });
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', String(options.port ?? 0)], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${stdout}\n${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!.replace(/\/$/, ''));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
  return { name, child, url, dir, stderr: () => stderr };
}

export async function shutdown(server: Server | undefined): Promise<number | null> {
  if (!server) return null;
  const { child } = server;
  const code =
    child.exitCode !== null || child.signalCode !== null
      ? child.exitCode
      : await new Promise<number | null>((resolve) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', (exitCode) => {
            clearTimeout(timer);
            resolve(exitCode);
          });
          child.kill('SIGTERM');
        });
  await rm(server.dir, { recursive: true, force: true });
  return code;
}

export function client(server: Server) {
  const url = `${server.url}/trpc`;
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url, EventSource }),
        false: httpLink({ url }),
      }),
    ],
  });
}
