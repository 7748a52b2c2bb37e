import { describe, expect, it } from 'vitest';
import { runHref } from './permalink.ts';

describe('runHref', () => {
  it('names the run, the event and the step, each part encoded', () => {
    expect(runHref({ runId: 'r1' })).toBe('#/runs/r1');
    expect(runHref({ runId: 'r1', at: 42, step: 'agent/llm#2' })).toBe('#/runs/r1?at=42&step=agent%2Fllm%232');
    expect(runHref({ runId: 'a b', step: 'each[3]/pick' })).toBe('#/runs/a%20b?step=each%5B3%5D%2Fpick');
    expect(runHref({ runId: 'r1', at: 0, step: null })).toBe('#/runs/r1?at=0');
  });
});
