/**
 * Ten SIGKILLs of `weft serve` around a hand-off to Inngest (the function served by the server,
 * synced with a real dev server; a restarted server comes back on the same port, where Inngest
 * calls it); what each trial must hold is in handoff-trials.ts. Which calls Inngest ran is read
 * from the run's trace on the dev server (its `step.run` spans).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@weft/adapters/backends';
import { calledSteps, inngestRunOf, inngestRunTrace, queryRunTrace } from '@weft/adapters/conformance';
import { type InngestDevServer, startInngestDevServer } from '@weft/adapters/inngest';
import { openStore } from '@weft/adapters/store';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { crashTrials, startToolCounter, type ToolCounter } from './handoff-trials.ts';
import { type Server, serve, shutdown } from './serve-process.ts';

let inngest: InngestDevServer;
let dataDir: string;
let counter: ToolCounter;
let port = 0;
const servers: Server[] = [];

beforeAll(async () => {
  inngest = await startInngestDevServer();
  dataDir = await mkdtemp(join(tmpdir(), 'weft-handoff-inngest-'));
  counter = await startToolCounter();
}, 15 * 60_000);

afterAll(async () => {
  for (const server of servers) await shutdown(server);
  await inngest?.stop();
  await counter?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** Per checkpoint: how many `step.run` spans Inngest's trace of the run holds for it. */
async function engineAttempts(runId: string): Promise<Map<string, number>> {
  // Read beside the server, as another process would (SQLite in WAL mode).
  const store = await openStore({ dataDir });
  try {
    const inngestRunId = await inngestRunOf(store, runId);
    // Weft's store records the end inside the run's last step; after a server was killed, Inngest
    // may take a while to mark its own run finished (a lost response is retried later): the
    // steps it ran are in the trace either way.
    const trace = await inngestRunTrace(inngest.url, inngestRunId).catch(() =>
      queryRunTrace(inngest.url, inngestRunId),
    );
    const attempts = new Map<string, number>();
    for (const stepId of calledSteps(trace)) attempts.set(stepId, (attempts.get(stepId) ?? 0) + 1);
    return attempts;
  } finally {
    await store.close();
  }
}

it(
  '10 SIGKILLs around the hand-off to Inngest: each run completes once, same output, nothing run twice',
  async () => {
    const report = await crashTrials({
      engine: 'inngest',
      trials: 10,
      counter,
      async start(name) {
        port ||= await freePort();
        const server = await serve(name, {
          dataDir,
          port,
          env: { INNGEST_DEV: '1', INNGEST_BASE_URL: inngest.url, WEFT_HTTP_ALLOW_PRIVATE: '1' },
        });
        servers.push(server);
        return server;
      },
      engineAttempts,
      recordsLostAttempts: false,
    });
    console.info(report.join('\n'));
    expect(report).toHaveLength(10);
  },
  15 * 60_000,
);
