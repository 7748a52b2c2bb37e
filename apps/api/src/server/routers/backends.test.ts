import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { greetFlow, type TestServer, testServices } from '../test-support.ts';

let server: TestServer;

beforeEach(async () => {
  server = await testServices();
  await server.services.store.flows.save(greetFlow);
});
afterEach(async () => {
  await server.close();
});

describe('backends', () => {
  it('lists in-process as available and the unconfigured engines with the setting they need', async () => {
    expect(await server.caller().backends.list()).toEqual([
      { id: 'inprocess', label: 'In-process', available: true, setting: null },
      { id: 'temporal', label: 'Temporal', available: false, setting: 'TEMPORAL_ADDRESS' },
      { id: 'inngest', label: 'Inngest', available: false, setting: 'INNGEST_DEV or INNGEST_BASE_URL' },
    ]);
  });

  it.each([
    ['temporal', 'TEMPORAL_ADDRESS'],
    ['inngest', 'INNGEST_DEV or INNGEST_BASE_URL'],
  ] as const)(
    'a run on %s without its setting is refused, naming the setting, and nothing is recorded',
    async (backend, setting) => {
      const refused = server.caller().runs.start({ flowId: 'greet', input: { name: 'Ada' }, backend });
      await expect(refused).rejects.toBeInstanceOf(TRPCError);
      await expect(refused).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: `backend: ${backend} is not available (${setting} is not set on the server); available: inprocess`,
      });
      expect(await server.services.store.listRuns({})).toEqual([]);
    },
  );
});
