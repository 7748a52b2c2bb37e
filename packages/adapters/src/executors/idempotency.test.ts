/**
 * Idempotency keys: an http call sends one derived from the run and the checkpoint (unless the
 * step opts out or sets its own), and a host tool receives the same key in its context. Keys are
 * computed here independently (SHA-256, base64url) so a change of derivation fails the test.
 */
import { createHash } from 'node:crypto';
import type { Json, StepCall } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { useFixtureServer } from './http-test-support.ts';
import { createExecutorRegistry, type HostTool } from './index.ts';

const served = useFixtureServer();

function expectedKey(runId: string, stepId: string): string {
  return createHash('sha256').update(`${runId}\u0000${stepId}`).digest('base64url');
}

/** Each call on a registry of its own, as a different process (or backend) would run it. */
function execute(call: StepCall, runId: string, stepId: string, tools: Record<string, HostTool> = {}) {
  const registry = createExecutorRegistry({ env: {}, tools, http: { allowPrivateNetwork: true } });
  return registry.execute(call, { signal: new AbortController().signal, runId, stepId, emitDelta: () => {} });
}

function post(extra: { headers?: Record<string, string>; idempotencyKey?: false } = {}): StepCall {
  return {
    kind: 'http',
    input: { method: 'POST', url: `${served.base}/echo`, headers: extra.headers ?? {}, body: { a: 1 }, ...extra },
  };
}

/** The Idempotency-Key header of the fixture server's last request. */
function lastKey(): unknown {
  return served.fixture.seen.at(-1)?.headers['idempotency-key'];
}

describe('http Idempotency-Key', () => {
  it('sends the key derived from run id and checkpoint, as a Structured Field string', async () => {
    await execute(post(), 'run-1', 'agent/post#2');
    expect(lastKey()).toBe(`"${expectedKey('run-1', 'agent/post#2')}"`);
  });

  it('sends the same key on every attempt of one call and a different one for another call', async () => {
    await execute(post(), 'run-1', 'each[0]/post');
    const first = lastKey();
    await execute(post(), 'run-1', 'each[0]/post');
    expect(lastKey()).toBe(first);
    await execute(post(), 'run-1', 'each[1]/post');
    expect(lastKey()).not.toBe(first);
    await execute(post(), 'run-2', 'each[0]/post');
    expect(lastKey()).not.toBe(first);
  });

  it('sends none when the step opts out', async () => {
    await execute(post({ idempotencyKey: false }), 'run-1', 'post');
    expect(served.fixture.seen.at(-1)?.headers).not.toHaveProperty('idempotency-key');
  });

  it("keeps the author's own Idempotency-Key header, whatever its case", async () => {
    await execute(post({ headers: { 'idempotency-KEY': 'mine-42' } }), 'run-1', 'post');
    expect(lastKey()).toBe('mine-42');
  });
});

describe('tool ctx.idempotencyKey', () => {
  const seen: string[] = [];
  const tools: Record<string, HostTool> = {
    charge: {
      description: 'Charges a card',
      parameters: { type: 'object' },
      execute: (_args: Json, ctx) => {
        seen.push(ctx.idempotencyKey);
        return null;
      },
    },
  };
  const charge: StepCall = { kind: 'tool', input: { tool: 'charge', args: {} } };

  it('is the same for the same run and checkpoint, and differs for another checkpoint or run', async () => {
    seen.length = 0;
    await execute(charge, 'run-1', 'agent/tools/charge#1', tools);
    await execute(charge, 'run-1', 'agent/tools/charge#1', tools);
    await execute(charge, 'run-1', 'agent/tools/charge#2', tools);
    await execute(charge, 'run-2', 'agent/tools/charge#1', tools);
    expect(seen[0]).toBe(expectedKey('run-1', 'agent/tools/charge#1'));
    expect(seen[1]).toBe(seen[0]);
    expect(new Set(seen).size).toBe(3);
  });

  it('matches the key an http call of the same checkpoint sends', async () => {
    seen.length = 0;
    await execute(charge, 'run-1', 'lookup', tools);
    await execute(post(), 'run-1', 'lookup');
    expect(lastKey()).toBe(`"${seen[0]}"`);
  });
});
