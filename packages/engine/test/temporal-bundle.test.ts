/**
 * The interpreter must load inside Temporal's workflow sandbox: no Node API, no clock, no
 * randomness. Bundling a workflow that runs `interpret` with Temporal's own bundler proves the
 * first (it refuses `fs`, `crypto`, … outright); scanning the engine's modules in that bundle
 * and running flows with the clock and randomness booby-trapped checks the rest.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker/lib/workflow/bundler.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { interpret } from '../src/interpreter/interpret.ts';
import { MemoryHost } from '../src/test-support/memory-host.ts';
import { goldenCases } from './golden-cases.ts';

const workflowsPath = fileURLToPath(new URL('./temporal/workflows.ts', import.meta.url));

interface LogLine {
  level: string;
  message: string;
}

const logs: LogLine[] = [];
let bundling: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles once for the whole file; a bundler failure fails each test with its message. */
function bundle(): Promise<WorkflowBundleWithSourceMap> {
  const push = (level: string) => (message: string) => logs.push({ level, message });
  const logger = {
    log: (level: string, message: string) => logs.push({ level: level.toLowerCase(), message }),
    trace: push('trace'),
    debug: push('debug'),
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
  };
  bundling ??= bundleWorkflowCode({ workflowsPath, logger });
  return bundling;
}

const BUNDLE_TIMEOUT = 120_000;

/** The bundle's modules by webpack key (dev mode marks each with a `/***\/ "<path>"` line). */
function modules(code: string): Map<string, string> {
  const found = new Map<string, string>();
  const parts = code.split(/\n\/\*\*\*\/ "([^"\n]+)"\n/);
  for (let index = 1; index + 1 < parts.length; index += 2) found.set(parts[index]!, parts[index + 1]!);
  return found;
}

/** Without comments, so a comment that mentions `Date.now()` is not a use of it. */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

describe('the interpreter in a Temporal workflow bundle', () => {
  it(
    'bundles with no error and no warning (no disallowed Node module)',
    async () => {
      const { code } = await bundle();
      expect(code.length).toBeGreaterThan(0);
      expect(logs.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
      expect(logs.map((line) => line.message).join('\n')).toMatch(/compiled successfully/);
    },
    BUNDLE_TIMEOUT,
  );

  it(
    'contains the engine: the interpreter and every step handler',
    async () => {
      const engine = [...modules((await bundle()).code).keys()].filter((key) => /(^|\/)src\/.+\.ts$/.test(key));
      for (const file of ['interpreter/interpret.ts', 'interpreter/host.ts', 'expr/evaluate.ts', 'steps/registry.ts']) {
        expect(engine.some((key) => key.endsWith(file))).toBe(true);
      }
      expect(engine.filter((key) => /steps\/[a-z]+\.ts$/.test(key)).length).toBeGreaterThanOrEqual(13);
    },
    BUNDLE_TIMEOUT,
  );

  it(
    'has no clock, randomness or timers in any engine module',
    async () => {
      const offending: string[] = [];
      for (const [key, source] of modules((await bundle()).code)) {
        if (key.includes('node_modules') || !/(^|\/)src\/.+\.ts$/.test(key)) continue;
        const code = stripComments(source);
        for (const use of [
          'Date.now(',
          'new Date(',
          'Math.random(',
          'performance.now(',
          'setTimeout(',
          'setInterval(',
          'crypto.',
        ]) {
          if (code.includes(use)) offending.push(`${key}: ${use}`);
        }
      }
      expect(offending).toEqual([]);
    },
    BUNDLE_TIMEOUT,
  );
});

describe('interpret without a clock or randomness', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it.each(goldenCases.map((golden) => [golden.name, golden] as const))(
    'runs the %s flow with Date.now, new Date() and Math.random booby-trapped',
    async (_name, golden) => {
      const flow = golden.flow();
      const expected = await interpret(flow, golden.input, new MemoryHost(golden.host), golden.options).then(
        (output) => ({ output }),
        (error: Error) => ({ error: error.message }),
      );

      const RealDate = Date;
      class NoClockDate extends RealDate {
        constructor(...args: ConstructorParameters<typeof Date> | []) {
          if (args.length === 0) throw new Error('the interpreter read the clock (new Date())');
          super(...(args as ConstructorParameters<typeof Date>));
        }
        static override now(): number {
          throw new Error('the interpreter read the clock (Date.now())');
        }
      }
      vi.stubGlobal('Date', NoClockDate);
      vi.spyOn(Math, 'random').mockImplementation(() => {
        throw new Error('the interpreter used Math.random()');
      });
      const trapped = await interpret(flow, golden.input, new MemoryHost(golden.host), golden.options).then(
        (output) => ({ output }),
        (error: Error) => ({ error: error.message }),
      );
      expect(trapped).toEqual(expected);
    },
  );
});
