/**
 * The example corpus stays what the README promises: valid against the whole corpus, covering
 * every step type and every kind of flow tool, runnable offline, and exercised by the suite.
 */
import { readFileSync } from 'node:fs';
import { type Flow, STEP_TYPES, type Step, validateFlow } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { CASES } from './cases.ts';
import { EXAMPLES_DIR, loadExamples } from './examples.ts';

const examples = loadExamples();

function allSteps(steps: readonly Step[]): Step[] {
  return steps.flatMap((step) => {
    switch (step.type) {
      case 'branch':
        return [step, ...step.cases.flatMap((arm) => allSteps(arm.steps)), ...allSteps(step.else ?? [])];
      case 'parallel':
        return [step, ...Object.values(step.branches).flatMap(allSteps)];
      case 'map':
      case 'loop':
        return [step, ...allSteps(step.steps)];
      default:
        return [step];
    }
  });
}

/** The flow and every flow it reaches through spawn steps and flow tools. */
function reachable(flow: Flow, seen = new Set<string>()): Flow[] {
  if (seen.has(flow.id)) return [];
  seen.add(flow.id);
  const targets = [
    ...allSteps(flow.steps).flatMap((step) => (step.type === 'spawn' ? [step.flow] : [])),
    ...Object.values(flow.tools ?? {}).flatMap((tool) => (tool.flow ? [tool.flow] : [])),
  ];
  return [flow, ...targets.flatMap((id) => reachable(examples.get(id.split('@')[0]!)!.flow, seen))];
}

describe('examples', () => {
  it('has at least eight flows, each valid with every other example as a spawn target', () => {
    expect(examples.size).toBeGreaterThanOrEqual(8);
    const docs = new Map([...examples].map(([id, entry]) => [id, entry.doc]));
    for (const [id, entry] of examples) {
      const result = validateFlow(entry.doc, { flows: docs });
      expect(result.ok ? [] : result.errors, id).toEqual([]);
    }
  });

  it('uses every step type and every kind of flow tool', () => {
    const flows = [...examples.values()].map((entry) => entry.flow);
    const types = new Set(flows.flatMap((flow) => allSteps(flow.steps).map((step) => step.type)));
    expect([...STEP_TYPES].filter((type) => !types.has(type))).toEqual([]);
    const tools = flows.flatMap((flow) => Object.values(flow.tools ?? {}));
    expect(tools.some((tool) => tool.source !== undefined)).toBe(true);
    expect(tools.some((tool) => tool.flow !== undefined)).toBe(true);
    expect(tools.some((tool) => tool.http !== undefined)).toBe(true);
    const llms = flows.flatMap((flow) => allSteps(flow.steps)).filter((step) => step.type === 'llm');
    expect(llms.some((step) => (step.maxSteps ?? 1) > 1 && (step.tools ?? []).length > 0)).toBe(true);
    expect(llms.some((step) => step.schema !== undefined)).toBe(true);
  });

  it('runs offline: every non-mock model step has recorded turns; fixtures name real llm steps', () => {
    for (const [id, entry] of examples) {
      const llmIds = reachable(entry.flow).flatMap((flow) =>
        allSteps(flow.steps).flatMap((step) => (step.type === 'llm' ? [{ id: step.id, model: step.model }] : [])),
      );
      for (const step of llmIds) {
        if (!step.model.startsWith('mock:'))
          expect(entry.fixtures[step.id], `${id}: fixtures for ${step.id}`).toBeDefined();
      }
      for (const key of Object.keys(entry.fixtures)) {
        expect(
          llmIds.some((step) => step.id === key || key.endsWith(`/${step.id}`)),
          `${id}: fixture '${key}'`,
        ).toBe(true);
      }
    }
    const echoOnly = [...examples.values()].filter(
      (entry) =>
        Object.keys(entry.fixtures).length === 0 &&
        allSteps(entry.flow.steps).some((step) => step.type === 'llm' && step.model === 'mock:echo'),
    );
    expect(echoOnly.length).toBeGreaterThan(0);
  });

  it('is exercised by the conformance cases, and listed in the README with its command', () => {
    const readme = readFileSync(`${EXAMPLES_DIR}README.md`, 'utf8');
    for (const id of examples.keys()) {
      expect(
        CASES.some((testCase) => testCase.flow === id),
        `a case for ${id}`,
      ).toBe(true);
      expect(readme, `README line for ${id}`).toContain(
        `pnpm weft run examples/${id}.json --input @examples/${id}.input.json`,
      );
    }
  });
});
