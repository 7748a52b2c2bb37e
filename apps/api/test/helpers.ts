/**
 * Runs the real CLI as a child process (the same Node that runs the tests) against a temporary
 * data folder, so every test sees exactly what a person at a terminal would.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Workspace {
  dir: string;
  data: string;
  /** Writes a JSON file into the workspace and returns its path. */
  write(name: string, value: unknown): Promise<string>;
  cli(args: string[], options?: { env?: Record<string, string | undefined> }): Promise<CliResult>;
  /** Starts the CLI without waiting: for killing it mid-run. */
  start(args: string[]): Running;
  cleanup(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-cli-'));
  const data = join(dir, 'data');
  const env: Record<string, string | undefined> = { ...process.env, WEFT_DATA: data, NO_COLOR: '1' };
  for (const name of ['DATABASE_URL', 'FORCE_COLOR', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'WEFT_LOCAL_BASE_URL']) {
    delete env[name];
  }
  return {
    dir,
    data,
    async write(name, value) {
      const path = join(dir, name);
      await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
      return path;
    },
    cli(args, options = {}) {
      return new Promise((resolve) => {
        execFile(
          process.execPath,
          [MAIN, ...args],
          { cwd: dir, env: { ...env, ...options.env }, timeout: 30_000 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
      });
    },
    start(args) {
      const child = spawn(process.execPath, [MAIN, ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        for (const waiter of [...waiters]) {
          const match = stderr.match(waiter.pattern);
          if (match) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(match);
          }
        }
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      return {
        child,
        exited,
        stderr: () => stderr,
        waitFor: (pattern) =>
          new Promise((resolve, reject) => {
            const match = stderr.match(pattern);
            if (match) return resolve(match);
            waiters.push({ pattern, resolve });
            void exited.then(() => reject(new Error(`CLI exited before ${pattern}; stderr:\n${stderr}`)));
          }),
      };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
  /** Resolves when stderr matches. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

/** The `--json` result: the last non-empty line of stdout. */
export function lastJson(stdout: string): Record<string, unknown> {
  const line = stdout.trimEnd().split('\n').at(-1) ?? '';
  return JSON.parse(line) as Record<string, unknown>;
}

/** A flow document with the boilerplate filled in. */
export function flow(id: string, steps: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { irVersion: 1, id, name: id, steps, ...extra };
}
