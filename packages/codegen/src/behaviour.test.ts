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
import {
  defineConformanceSuite,
  inProcessUnderTest,
  loadExamples,
  REPLAY_FLOWS,
  runServiceConformanceAdapter,
} from '@weft/adapters/conformance';
import { openSqliteStore } from '@weft/adapters/store';
import { type CodeFirstFlow, type Flow, isCodeFirstFlow, runCodeFirst } from '@weft/engine';
import { afterAll, describe } from 'vitest';
import { exportFlow } from './export-flow.ts';

const MODULES = fileURLToPath(new URL(`../.tmp-behaviour-${process.pid}/`, import.meta.url));
afterAll(() => rmSync(MODULES, { recursive: true, force: true }));

/** A flow version's key: the replay cases run two versions of one flow. */
const versionOf = (flow: Pick<Flow, 'id' | 'version'>) => `${flow.id}@${flow.version ?? 1}`;

/** Every example (and the replay cases' flows) exported and loaded as its code-first flow, by flow id and version. */
async function exportedFlows(): Promise<Map<string, CodeFirstFlow>> {
  mkdirSync(MODULES, { recursive: true });
  const load = createRequire(MODULES);
  const flows = new Map<string, CodeFirstFlow>();
  const sources: [string, Flow][] = [...loadExamples().values(), ...REPLAY_FLOWS.map((flow) => ({ flow }))].map(
    ({ flow }) => [versionOf(flow), flow],
  );
  for (const [id, flow] of sources) {
    const file = join(MODULES, `${id}.ts`);
    writeFileSync(file, await exportFlow(flow, 'weft'));
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
    return runServiceConformanceAdapter({
      name: 'weft export on inprocess',
      store,
      backend: inProcessUnderTest(store, {
        // The run (and every child run it spawns) executes the exported TypeScript, not the IR.
        interpret: (irFlow, runInput, host, options) => {
          const code = codeFlows.get(versionOf(irFlow));
          if (!code) throw new Error(`no exported module for ${versionOf(irFlow)}`);
          return runCodeFirst(code, runInput, host, options);
        },
      }),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    })();
  };
}

describe('the weft export of every conformance flow behaves like the IR flow', () => {
  defineConformanceSuite(codeFirstAdapter());
});
