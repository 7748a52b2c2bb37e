import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Flow, validateFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { exportFlow } from './export-flow.ts';
import { importFlow } from './import/import-flow.ts';
import { canonicalFlow } from './test-support/canonical.ts';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const exampleFlows: [string, Flow][] = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith('.json') && !name.endsWith('.input.json') && !name.endsWith('.fixtures.json'))
  .map((name) => {
    const result = validateFlow(JSON.parse(readFileSync(`${EXAMPLES}${name}`, 'utf8')));
    if (!result.ok) throw new Error(`${name} is invalid`);
    return [name, result.flow];
  });

async function roundTrip(flow: Flow): Promise<{ source: string; back: Flow }> {
  const source = await exportFlow(flow, 'weft');
  const imported = importFlow(source);
  if (!imported.ok) throw new Error(`import failed:\n${JSON.stringify(imported.errors, null, 2)}\n${source}`);
  return { source, back: imported.flow };
}

describe('IR → weft TypeScript → IR', () => {
  it('covers the example corpus', () => {
    expect(exampleFlows.length).toBeGreaterThanOrEqual(9);
  });

  it.each(exampleFlows)('%s comes back the same (up to ui and canonical expression spelling)', async (_name, flow) => {
    const { source, back } = await roundTrip(flow);
    expect(canonicalFlow(back)).toEqual(canonicalFlow(flow));
    // Exporting the imported flow gives the same text: the TypeScript is a fixed point.
    expect(await exportFlow(back, 'weft')).toBe(source);
  });

  it('keeps code step sources byte for byte and templates and names exactly', async () => {
    const flow = exampleFlows.find(([name]) => name === 'summarize-text.json')![1];
    const { back } = await roundTrip(flow);
    expect(back.steps[0]).toEqual(flow.steps[0]);
    expect(back.steps[1]).toEqual(flow.steps[1]);
    expect(back.output).toEqual(flow.output);
  });
});
