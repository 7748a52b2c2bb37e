/**
 * Property: for generated flows (nested branch/parallel/map/loop around transform, code, llm,
 * approval, sleep and fail steps with expressions and templates), IR → weft TypeScript → IR is
 * the identity up to `ui` and the canonical spelling of expressions (test-support/canonical.ts),
 * and the exported text is a fixed point of export ∘ import.
 */
import { type Flow, validateFlow } from '@weft/engine';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportFlow } from './export-flow.ts';
import { importFlow } from './import/import-flow.ts';
import { canonicalFlow } from './test-support/canonical.ts';
import { flowArb } from './test-support/flow-arbitrary.ts';

/** 60 by default (a few seconds); `WEFT_PROPERTY_RUNS=1000` for a longer search. */
const RUNS = Number(process.env.WEFT_PROPERTY_RUNS) || 60;

/** The flow as validateFlow gives it back (defaults filled in), which is what export reads. */
function validated(flow: Flow): Flow {
  const result = validateFlow(flow);
  if (!result.ok) throw new Error(`the arbitrary made an invalid flow: ${JSON.stringify(result.errors)}`);
  return result.flow;
}

describe('property: IR → weft TypeScript → IR', () => {
  it('generates valid flows', () => {
    fc.assert(
      fc.property(flowArb, (flow) => {
        expect(validateFlow(flow).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('is the identity up to ui, and export is a fixed point', { timeout: Math.max(30_000, RUNS * 200) }, async () => {
    await fc.assert(
      fc.asyncProperty(flowArb, async (generated) => {
        const flow = validated(generated);
        const source = await exportFlow(flow, 'weft');
        const imported = importFlow(source, 'generated.ts');
        if (!imported.ok) {
          throw new Error(`import failed: ${JSON.stringify(imported.errors)}\n${source}`);
        }
        expect(canonicalFlow(imported.flow)).toEqual(canonicalFlow(flow));
        expect(await exportFlow(imported.flow, 'weft')).toBe(source);
      }),
      { numRuns: RUNS },
    );
  });
});

/** The round trip of a one-step flow, as canonical IR (throws when export or import fails). */
async function roundTripStep(step: Record<string, unknown>): Promise<{ before: unknown; after: unknown }> {
  const flow = validated({ irVersion: 1, id: 'known', name: 'Known', steps: [step] } as Flow);
  const imported = importFlow(await exportFlow(flow, 'weft'));
  if (!imported.ok) throw new Error(JSON.stringify(imported.errors));
  return { before: canonicalFlow(flow), after: canonicalFlow(imported.flow) };
}

/**
 * Counterexamples the property found, kept out of the arbitrary (flow-arbitrary.ts) until the
 * exporter or importer is fixed. `it.fails`: each turns red once its bug is fixed — then move
 * it into the arbitrary.
 */
describe('KNOWN_BUGS (found by the property)', () => {
  it.fails("a string with a backslash before a quote: emit/expression.ts quote() prints '\\\\'' (unterminated)", async () => {
    const { before, after } = await roundTripStep({ id: 'a', type: 'transform', value: "it\\'s" });
    expect(after).toEqual(before);
  });

  it.fails('a template whose only `{{` is escaped (`\\{{ input.x }}`) comes back as a string expression', async () => {
    const { before, after } = await roundTripStep({
      id: 'a',
      type: 'llm',
      model: 'mock:echo',
      prompt: '\\{{ input.x }}',
    });
    expect(after).toEqual(before);
  });

  it.fails('an object literal as a branch condition prints as `() => { a: 1 }` (a block, not an object)', async () => {
    const { before, after } = await roundTripStep({
      id: 'a',
      type: 'branch',
      cases: [{ when: '={ a: 1 }', steps: [] }],
    });
    expect(after).toEqual(before);
  });

  it.fails("a string literal holding `{{` inside a value expression (`=['{{ x }}']`) comes back as a template", async () => {
    const { before, after } = await roundTripStep({ id: 'a', type: 'transform', value: "=['{{ x }}']" });
    expect(after).toEqual(before);
  });
});
