/**
 * Keeps the prototype-pollution class closed, end to end: random flows whose step ids, branch
 * names, map item names and object keys are drawn from Object.prototype's member names, odd
 * Unicode and plain identifiers go through the product path — the API's validation
 * (flows.create), a run (runs.start), the reducer (runs.get), export to every target and import
 * back. Nothing may throw but a validation error, every accepted flow must run to the output
 * its literals say, and Object.prototype must end exactly as it began.
 */
import { TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, testServices, waitForStatus } from './test-support.ts';

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const BUILT_IN = new Set(PROTOTYPE_NAMES);
const ODD = ['', ' ', 'é', 'ℌ', '𝔁', '\u200b', '\u2028', '\ud800', 'a-b', '0a', 'a'.repeat(70), 'ثبت', '🙂'];

/** Names a flow author might choose, biased to the dangerous ones. */
const name = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD) },
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/) },
);

type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
/** Literal JSON (no expressions) with keys from `name`, built as JSON.parse would (own data keys). */
const literal: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.string().filter((text) => !/^=|\{\{/.test(text)),
    ),
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(fc.tuple(name, tie('value')), { maxLength: 3 })
      .map((entries) => Object.fromEntries(entries) as { [key: string]: Value }),
  ),
})).value;

interface Generated {
  doc: Record<string, unknown>;
  /** What the run must output, when the flow is accepted. */
  expected: Value;
}

/** A flow: top-level transforms with literal values, a parallel of named branches, a map with `as`. */
const flowArb: fc.Arbitrary<Generated> = fc
  .record({
    ids: fc.uniqueArray(name, { minLength: 1, maxLength: 4 }),
    values: fc.array(literal, { minLength: 4, maxLength: 4 }),
    branches: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
    as: name,
    stepName: fc.constantFrom(...ODD, ...PROTOTYPE_NAMES),
  })
  .map(({ ids, values, branches, as, stepName }) => {
    const steps: Record<string, unknown>[] = ids.map((id, index) => ({
      id,
      type: 'transform',
      name: stepName,
      value: values[index] ?? null,
    }));
    steps.push({
      id: 'fan',
      type: 'parallel',
      branches: Object.fromEntries(
        branches.map((branch, index) => [branch, [{ id: `b${index}`, type: 'transform', value: values[index] ?? 1 }]]),
      ),
    });
    steps.push({
      id: 'each',
      type: 'map',
      items: '=[1, 2]',
      as,
      steps: [{ id: 'twice', type: 'transform', value: `=${as} * 2` }],
    });
    const fan = Object.fromEntries(branches.map((branch, index) => [branch, values[index] ?? 1])) as Value;
    const last = ids.at(-1) as string;
    return {
      // Through JSON text, as a request body arrives: `__proto__` keys stay data keys.
      doc: JSON.parse(
        JSON.stringify({
          irVersion: 1,
          id: 'fuzz',
          name: stepName === '' ? 'fuzz' : stepName,
          steps,
          output: { last: `=steps.${last}.output`, fan: '=steps.fan.output', each: '=steps.each.output' },
        }),
      ) as Record<string, unknown>,
      expected: { last: values[ids.length - 1] ?? null, fan, each: [2, 4] },
    };
  });

let server: TestServer;
beforeAll(async () => {
  server = await testServices();
});
afterAll(() => server?.close());

function expectPrototypeUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).filter((key) => !BUILT_IN.has(key))).toEqual([]);
  for (const key of PROTOTYPE_NAMES) {
    expect(typeof Object.getOwnPropertyDescriptor(Object.prototype, key)).toBe('object');
  }
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

describe('hostile names through validate → run → reducer → export → import', () => {
  it('throws nothing but validation errors and never touches Object.prototype', async () => {
    let accepted = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(flowArb, async ({ doc, expected }) => {
        const caller = server.caller();
        await caller.flows.delete({ id: 'fuzz' }).catch(() => undefined);
        try {
          await caller.flows.create({ doc });
        } catch (error) {
          // The only acceptable failure: a validation error that names where.
          expect(error).toBeInstanceOf(TRPCError);
          expect((error as TRPCError).code).toBe('BAD_REQUEST');
          expect((error as TRPCError).message).toMatch(/steps|name|flow/);
          refused++;
          expectPrototypeUntouched();
          return;
        }
        accepted++;
        const { runId } = await caller.runs.start({ flowId: 'fuzz' });
        expect(await waitForStatus(server.services, runId, ['completed', 'failed'])).toBe('completed');
        const { state } = await caller.runs.get({ runId });
        expect(state.output).toEqual(expected);
        const ids = (doc.steps as { id: string }[]).map((step) => step.id);
        for (const id of ids) expect(Object.hasOwn(state.steps, id)).toBe(true);
        for (const target of ['weft', 'inngest', 'temporal'] as const) {
          const { files } = await caller.flows.exportCode({ id: 'fuzz', target });
          expect(files.length).toBeGreaterThan(0);
        }
        const [weft] = (await caller.flows.exportCode({ id: 'fuzz', target: 'weft' })).files;
        const imported = await caller.flows.importCode({ source: weft!.contents, fileName: 'fuzz.ts' });
        const back = imported.flow.doc as { steps: { id: string }[] };
        expect(back.steps.map((step) => step.id)).toEqual(ids);
        await caller.flows.delete({ id: imported.flow.id });
        expectPrototypeUntouched();
      }),
      { numRuns: 80 },
    );
    // Both sides were exercised: some flows were valid, some were refused.
    expect(accepted).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  }, 180_000);
});
