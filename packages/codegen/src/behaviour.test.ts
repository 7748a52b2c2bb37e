/**
 * Behavioural equivalence: the weft export of every example flow, loaded as a real TypeScript
 * module and run with `runCodeFirst` on the durable in-process runner, passes the same
 * conformance cases as the IR flows — same outputs, same errors, same event sequences
 * (step paths, order, approvals, child runs). The modules are written inside the repo so
 * `@weft/engine` resolves, and loaded by Node itself (type stripping), not by the test
 * runner's transform, so code step functions keep their exact text.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceAdapter } from '@weft/adapters/conformance';
import { defineConformanceSuite, loadExamples } from '@weft/adapters/conformance';
import { createExecutorRegistry } from '@weft/adapters/executors';
import { InProcessRunner, memoryFlowSource, type RunOutcome } from '@weft/adapters/inprocess';
import { openSqliteStore } from '@weft/adapters/store';
import { type CodeFirstFlow, isCodeFirstFlow, runCodeFirst } from '@weft/engine';
import { afterAll, describe } from 'vitest';
import { exportFlow } from './export-flow.ts';

const MODULES = fileURLToPath(new URL(`../.tmp-behaviour-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(MODULES, { recursive: true, force: true }));

/** Every example exported and loaded as its code-first flow, by flow id. */
async function exportedFlows(): Promise<Map<string, CodeFirstFlow>> {
  mkdirSync(MODULES, { recursive: true });
  const load = createRequire(MODULES);
  const flows = new Map<string, CodeFirstFlow>();
  for (const [id, example] of loadExamples()) {
    const file = join(MODULES, `${id}.ts`);
    writeFileSync(file, await exportFlow(example.flow, 'weft'));
    const loaded = (load(file) as { default: unknown }).default;
    if (!isCodeFirstFlow(loaded)) throw new Error(`${id}.ts does not export a code-first flow`);
    flows.set(id, loaded);
  }
  return flows;
}

function codeFirstAdapter(): () => Promise<ConformanceAdapter> {
  return async () => {
    const codeFlows = await exportedFlows();
    const dir = join(tmpdir(), `weft-codegen-${process.pid}`);
    const store = await openSqliteStore(join(dir, 'weft.db'));
    const runners: InProcessRunner[] = [];
    const executions = new Map<string, { runner: InProcessRunner; execution: Promise<RunOutcome> }>();
    const tracked = (runId: string) => executions.get(runId)!;
    return {
      name: 'weft export on inprocess',
      async start({ flow, flows, input, fixtures }) {
        const runner = new InProcessRunner({
          store,
          executors: createExecutorRegistry({ http: { allowPrivateNetwork: true } }),
          flows: memoryFlowSource(flows),
          // The run (and every child run it spawns) executes the exported TypeScript, not the IR.
          interpret: (irFlow, runInput, host, options) => {
            const code = codeFlows.get(irFlow.id);
            if (!code) throw new Error(`no exported module for ${irFlow.id}`);
            return runCodeFirst(code, runInput, host, options);
          },
        });
        runners.push(runner);
        const runId = await runner.create(flow, input, { fixtures });
        const execution = runner.execute(runId);
        execution.catch(() => {});
        executions.set(runId, { runner, execution });
        return { runId };
      },
      async decide(runId, stepId, decision) {
        const entry = tracked(runId);
        const previous = entry.execution;
        const resumed = entry.runner.approve(runId, stepId, decision).then(({ outcome }) => outcome);
        entry.execution = Promise.allSettled([previous, resumed]).then(() => resumed);
        entry.execution.catch(() => {});
      },
      async waitForEnd(runId) {
        await tracked(runId).execution.catch(() => {});
        for (const started = Date.now(); Date.now() - started < 15_000; ) {
          const run = await store.getRun(runId);
          if (run && ['completed', 'failed', 'cancelled'].includes(run.status))
            return { status: run.status, output: run.output, error: run.error };
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`run ${runId} did not end within 15 s`);
      },
      events: (runId) => store.readEvents(runId),
      async close() {
        await Promise.allSettled([...executions.values()].map((entry) => entry.execution));
        for (const runner of runners) await runner.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

describe('the weft export of every conformance flow behaves like the IR flow', () => {
  defineConformanceSuite(codeFirstAdapter());
});
