/** flows.exportCode, exportDocCode and importCode: a flow as TypeScript and back, through createCaller. */
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, testServices } from '../test-support.ts';

const flow = (id: string, extra: Record<string, unknown> = {}) => ({
  irVersion: 1,
  id,
  name: `Flow ${id}`,
  input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  steps: [
    { id: 'greet', type: 'transform', value: { text: 'hi {{ input.name }}', name: '=input.name' } },
    { id: 'reply', type: 'llm', model: 'mock:echo', prompt: '{{ steps.greet.output.text }}' },
  ],
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe('flows.exportCode / flows.importCode', () => {
  let server: TestServer;
  let caller: ReturnType<TestServer['caller']>;

  beforeAll(async () => {
    server = await testServices();
    caller = server.caller();
  });
  afterAll(() => server.close());

  it('exports the latest version, or a given one, as one weft module', async () => {
    await caller.flows.create({ doc: flow('greeter') });
    await caller.flows.save({ id: 'greeter', doc: flow('greeter', { name: 'Greeter two' }) });
    const latest = await caller.flows.exportCode({ id: 'greeter', target: 'weft' });
    expect(latest.files).toHaveLength(1);
    expect(latest.files[0]!.path).toBe('greeter.ts');
    expect(latest.files[0]!.contents).toContain('defineFlow');
    expect(latest.files[0]!.contents).toContain('Greeter two');
    const first = await caller.flows.exportCode({ id: 'greeter', version: 1, target: 'weft' });
    expect(first.files[0]!.contents).toContain('Flow greeter');
  });

  it('exports every file of a multi-file target', async () => {
    const { files } = await caller.flows.exportCode({ id: 'greeter', target: 'temporal' });
    expect(files.map((file) => file.path)).toEqual(['greeter.workflow.ts', 'greeter.activities.ts']);
    const inngest = await caller.flows.exportCode({ id: 'greeter', target: 'inngest' });
    expect(inngest.files.length).toBeGreaterThanOrEqual(1);
    expect(inngest.files[0]!.path).toMatch(/^greeter.*\.ts$/);
  });

  it('exports an unsaved document as given, and refuses an invalid one naming the problem', async () => {
    const { files } = await caller.flows.exportDocCode({ doc: flow('draft', { name: 'Draft only' }), target: 'weft' });
    expect(files[0]!.contents).toContain('Draft only');
    expect((await caller.flows.list()).some((f) => f.id === 'draft')).toBe(false);
    const bad = await failure(
      caller.flows.exportDocCode({
        doc: flow('draft', { steps: [{ id: 'a', type: 'transform', value: '=nope.x' }] }),
        target: 'weft',
      }),
    );
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toMatch(/steps\[0\].*nope/);
  });

  it('never writes a literal credential: it becomes a process.env read', async () => {
    const doc = flow('caller', {
      steps: [
        {
          id: 'call',
          type: 'http',
          method: 'GET',
          url: 'https://api.example.com/v1',
          headers: { authorization: 'Bearer sk-live-1234567890' },
        },
      ],
    });
    for (const target of ['weft', 'inngest', 'temporal'] as const) {
      const { files } = await caller.flows.exportDocCode({ doc, target });
      const all = files.map((file) => file.contents).join('\n');
      expect(all, target).not.toContain('sk-live-1234567890');
      expect(all, target).toContain('process.env');
      expect(all, target).toContain('CALL_AUTHORIZATION');
    }
  });

  it('names the field of a bad input', async () => {
    const unknownTarget = await failure(caller.flows.exportCode({ id: 'greeter', target: 'cobol' }));
    expect(unknownTarget.code).toBe('BAD_REQUEST');
    expect(unknownTarget.message).toMatch(/target[\s\S]*weft, inngest, temporal/);
    const noDoc = await failure(caller.flows.exportDocCode({ doc: [] as never, target: 'weft' }));
    expect(noDoc.code).toBe('BAD_REQUEST');
    expect(noDoc.message).toMatch(/doc/);
    const missing = await failure(caller.flows.exportCode({ id: 'nobody', target: 'weft' }));
    expect(missing.code).toBe('NOT_FOUND');
    const noVersion = await failure(caller.flows.exportCode({ id: 'greeter', version: 9, target: 'weft' }));
    expect(noVersion.message).toBe("flow 'greeter' has no version 9");
    const badName = await failure(caller.flows.importCode({ source: '', fileName: 'flow.json' }));
    expect(badName.message).toMatch(/fileName[\s\S]*\.ts/);
  });

  it('imports an export as a new flow under a free id when its id is taken', async () => {
    const { files } = await caller.flows.exportCode({ id: 'greeter', target: 'weft' });
    const source = files[0]!.contents;
    const first = await caller.flows.importCode({ source, fileName: 'greeter.ts' });
    expect(first.renamedFrom).toBe('greeter');
    expect(first.flow).toMatchObject({ id: 'greeter-2', version: 1, name: 'Greeter two' });
    const second = await caller.flows.importCode({ source, fileName: 'greeter.ts' });
    expect(second.flow.id).toBe('greeter-3');
    // The same steps as the flow it was exported from; the original is untouched.
    const original = await caller.flows.get({ id: 'greeter' });
    expect((second.flow.doc as { steps: unknown }).steps).toEqual((original.doc as { steps: unknown }).steps);
    expect(original.version).toBe(2);
  });

  it('imports under the file’s own id when it is free', async () => {
    const { files } = await caller.flows.exportDocCode({ doc: flow('fresh'), target: 'weft' });
    const imported = await caller.flows.importCode({ source: files[0]!.contents, fileName: 'fresh.ts' });
    expect(imported.renamedFrom).toBeNull();
    expect(imported.flow).toMatchObject({ id: 'fresh', version: 1 });
  });

  it('keeps ids within 64 characters when it adds a suffix', async () => {
    const long = 'a'.repeat(64);
    await caller.flows.create({ doc: flow(long) });
    const { files } = await caller.flows.exportCode({ id: long, target: 'weft' });
    const imported = await caller.flows.importCode({ source: files[0]!.contents, fileName: 'long.ts' });
    expect(imported.flow.id).toBe(`${'a'.repeat(62)}-2`);
  });

  it('refuses a file that does not import, listing line:column for each problem, and creates nothing', async () => {
    const before = (await caller.flows.list()).length;
    const source = [
      "import { defineFlow } from '@weft/engine';",
      '',
      "export default defineFlow({ id: 'broken', name: 'Broken' }, async ({ input, step }) => {",
      "  await step.transform('a', { value: process.env.SECRET });",
      "  await step.transform('b', { value: nope.x });",
      '});',
      '',
    ].join('\n');
    const error = await failure(caller.flows.importCode({ source, fileName: 'broken.ts' }));
    expect(error.code).toBe('BAD_REQUEST');
    const lines = error.message.split('\n');
    expect(lines[0]).toMatch(/^broken\.ts cannot be imported \(\d+ problems?\):$/);
    expect(lines.slice(1).length).toBeGreaterThanOrEqual(1);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\d+:\d+ \S/);
    expect(lines.some((line) => line.startsWith('4:'))).toBe(true);
    expect((await caller.flows.list()).length).toBe(before);
    expect((await caller.flows.list()).some((f) => f.id === 'broken')).toBe(false);
  });

  it('refuses a syntax error at its line', async () => {
    const error = await failure(caller.flows.importCode({ source: 'export default defineFlow(\n{', fileName: 'x.ts' }));
    expect(error.message).toMatch(/^x\.ts cannot be imported/);
    expect(error.message.split('\n')[1]).toMatch(/^2:\d+ /);
  });
});
