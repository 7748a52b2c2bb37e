/**
 * Ten SIGKILLs of `weft serve` around a hand-off to Temporal (its worker in the server process);
 * what each trial must hold is in handoff-trials.ts. Which calls Temporal ran, with how many
 * attempts, is read from the workflow's history (its `executeCall` activities).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTemporal, startTemporalDevServer, type TemporalDevServer } from '@weft/adapters/temporal';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { crashTrials, startToolCounter, type ToolCounter } from './handoff-trials.ts';
import { type Server, serve, shutdown } from './serve-process.ts';

let temporal: TemporalDevServer;
let dataDir: string;
let counter: ToolCounter;
const servers: Server[] = [];

beforeAll(async () => {
  temporal = await startTemporalDevServer();
  dataDir = await mkdtemp(join(tmpdir(), 'weft-handoff-temporal-'));
  counter = await startToolCounter();
}, 15 * 60_000);

afterAll(async () => {
  for (const server of servers) await shutdown(server);
  await temporal?.stop();
  await counter?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

/** Per step id: the attempts of the `executeCall` activity Temporal scheduled for it. */
async function engineAttempts(runId: string): Promise<Map<string, number>> {
  const temporalClient = await connectTemporal({ address: temporal.address });
  try {
    const events = (await temporalClient.workflow.getHandle(runId).fetchHistory()).events ?? [];
    const scheduled = new Map<string, string>();
    const attempts = new Map<string, number>();
    for (const event of events) {
      const payload = event.activityTaskScheduledEventAttributes?.input?.payloads?.[1]?.data;
      if (payload) {
        const stepId = JSON.parse(Buffer.from(payload).toString('utf8')) as string;
        scheduled.set(String(event.eventId), stepId);
        attempts.set(stepId, 1);
      }
      // Written once the activity ends, with the attempt that ended it.
      const started = event.activityTaskStartedEventAttributes;
      const stepId = started ? scheduled.get(String(started.scheduledEventId)) : undefined;
      if (started && stepId !== undefined) attempts.set(stepId, started.attempt ?? 1);
    }
    return attempts;
  } finally {
    await temporalClient.connection.close();
  }
}

it(
  '10 SIGKILLs around the hand-off to Temporal: each run completes once, same output, nothing run twice',
  async () => {
    const report = await crashTrials({
      engine: 'temporal',
      trials: 10,
      counter,
      async start(name) {
        const server = await serve(name, {
          dataDir,
          env: { TEMPORAL_ADDRESS: temporal.address, WEFT_HTTP_ALLOW_PRIVATE: '1' },
        });
        servers.push(server);
        return server;
      },
      engineAttempts,
      recordsLostAttempts: true,
    });
    console.info(report.join('\n'));
    expect(report).toHaveLength(10);
  },
  15 * 60_000,
);
