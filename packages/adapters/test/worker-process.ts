/** Runs `fixtures/worker.ts` in a child process; optionally SIGKILLs it at its k-th progress line. */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

export interface WorkerConfig {
  storeUrl: string;
  runId: string;
  log: string;
  pauseMs: number;
  input: unknown;
  /** Stop after each progress line until acknowledged (see fixtures/worker.ts). */
  handshake?: boolean;
}

export interface WorkerResult {
  /** 'SIGKILL' when the test killed it; null when it exited by itself. */
  signal: NodeJS.Signals | null;
  code: number | null;
  /** Progress lines ("fx <id>", "ev <type> <stepId>", "done <outcome>") seen before the end. */
  lines: string[];
  stderr: string;
}

export function runWorker(mode: 'crash' | 'park', config: WorkerConfig, killAtLine?: number): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, mode, JSON.stringify(config)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // V8's code cache cuts a worker's start-up (the ai SDK, kysely, pg) by about two thirds.
      env: {
        ...process.env,
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'weft-test-compile-cache'),
      },
    });
    const lines: string[] = [];
    let pending = '';
    let stderr = '';
    child.stdin.on('error', () => {}); // an ack racing the worker's exit
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        lines.push(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
        if (killAtLine !== undefined && lines.length === killAtLine) child.kill('SIGKILL');
        else if (config.handshake && lines.length !== killAtLine) child.stdin.write('.');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, lines, stderr }));
  });
}
