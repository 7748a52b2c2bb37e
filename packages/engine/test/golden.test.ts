/**
 * Golden journals: each case in golden-cases.ts was run once with a deterministic host and its
 * journal (answers + call hashes), event trail and result committed under `golden/`. Replaying
 * one with a host that refuses any new call must give the same result and the same events —
 * that is what a resumed run relies on. Regenerate with UPDATE_GOLDEN=1.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DeterminismError, toErrorInfo } from '../src/errors.ts';
import { interpret } from '../src/interpreter/interpret.ts';
import type { Flow } from '../src/ir/flow.ts';
import { DeterminismProbeHost } from '../src/test-support/determinism-probe.ts';
import { eventLanes, type GoldenJournal, recordGolden } from '../src/test-support/golden.ts';
import { eventTrail } from '../src/test-support/memory-host.ts';
import { type GoldenCase, goldenCases } from './golden-cases.ts';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const folder = new URL('./golden/', import.meta.url);
const fileOf = (name: string) => new URL(`${name}.journal.json`, folder);

function record(golden: GoldenCase): Promise<GoldenJournal> {
  return recordGolden(golden.name, golden.flow(), golden.input, golden.host, golden.options);
}

async function load(golden: GoldenCase): Promise<GoldenJournal> {
  const file = fileOf(golden.name);
  if (UPDATE) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(file, `${JSON.stringify(await record(golden), null, 2)}\n`);
  }
  if (!existsSync(file)) {
    throw new Error(
      `no golden journal for '${golden.name}': run UPDATE_GOLDEN=1 pnpm vitest run --project engine test/golden.test.ts`,
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as GoldenJournal;
}

async function replay(flow: Flow, golden: GoldenJournal, options: GoldenCase['options']) {
  const probe = new DeterminismProbeHost(golden.journal);
  let result: GoldenJournal['result'];
  let thrown: unknown;
  try {
    result = { output: await interpret(flow, golden.input, probe, options) };
  } catch (error) {
    thrown = error;
    result = { error: toErrorInfo(error) };
  }
  return { probe, result, thrown };
}

const byName = (name: string) => goldenCases.find((c) => c.name === name)!;

describe.each(goldenCases)('golden journal $name', (golden) => {
  it('replays with no new call: same result, same events, every journaled step used', async () => {
    const recorded = await load(golden);
    const { probe, result, thrown } = await replay(golden.flow(), recorded, golden.options);
    expect(thrown).not.toBeInstanceOf(DeterminismError);
    expect(result).toEqual(recorded.result);
    // The same events, in the same order within every concurrency lane (see eventLanes).
    expect(eventLanes(probe.events)).toEqual(eventLanes(recorded.events));
    expect([...eventTrail(probe.events)].sort()).toEqual([...recorded.trail].sort());
    expect(probe.events).toHaveLength(recorded.events.length);
    expect(probe.unconsumed()).toEqual([]);
  });

  it('is what recording the case today gives (the file is not stale)', async () => {
    const recorded = await load(golden);
    expect(JSON.parse(JSON.stringify(await record(golden)))).toEqual(recorded);
  });
});

describe('golden journals catch a changed flow', () => {
  it('fails with a determinism error when one prompt changed', async () => {
    const golden = byName('agent-tools');
    const recorded = await load(golden);
    const flow = golden.flow();
    const agent = flow.steps[0]!;
    if (agent.type !== 'llm') throw new Error('agent-tools starts with its llm step');
    agent.prompt = 'Calculate {{ input.question }}';

    const { thrown, probe } = await replay(flow, recorded, golden.options);
    expect(thrown).toBeInstanceOf(DeterminismError);
    expect((thrown as Error).message).toMatch(
      /step 'agent\/llm#1' was recorded as model-turn:\S+ but the replay asks for model-turn:\S+/,
    );
    expect(probe.events.at(-1)).toMatchObject({ type: 'step.failed', stepId: 'agent', error: { code: 'determinism' } });
  });

  it('fails with a determinism error when an argument of a code step changed', async () => {
    const golden = byName('refund-approval');
    const recorded = await load(golden);
    const flow = golden.flow();
    const check = flow.steps[0]!;
    if (check.type !== 'code') throw new Error('refund-approval starts with its code step');
    check.args = { amount: '=input.amount + 1' };
    const { thrown } = await replay(flow, recorded, golden.options);
    expect(thrown).toBeInstanceOf(DeterminismError);
    expect((thrown as Error).message).toContain("step 'check'");
  });

  it('still replays a journal whose code calls carried every earlier output (before code@2)', async () => {
    // What a run parked across the upgrade holds: code calls hashed with all of `steps`.
    const golden = byName('fanout-map');
    const recorded = await load(golden);
    const legacy = structuredClone(recorded);
    let codeCalls = 0;
    for (const entry of Object.values(legacy.journal)) {
      if (!entry.hash.startsWith('code@2:')) continue;
      entry.hash = 'code:0legacy';
      codeCalls++;
    }
    expect(codeCalls).toBeGreaterThan(1);
    const { thrown, result, probe } = await replay(golden.flow(), legacy, golden.options);
    expect(thrown).toBeUndefined();
    expect(result).toEqual(recorded.result);
    expect(probe.unconsumed()).toEqual([]);
  });

  it('refuses a call the recording never made (a step was added)', async () => {
    const golden = byName('fanout-map');
    const recorded = await load(golden);
    const flow = golden.flow();
    flow.steps.push({ id: 'extra', type: 'http', url: 'https://api.example/extra' });
    const { thrown } = await replay(flow, recorded, golden.options);
    expect(thrown).toBeInstanceOf(DeterminismError);
    expect((thrown as Error).message).toContain("step 'extra' is not in the golden journal");
  });

  it('notices journaled steps the flow no longer asks for (a step was removed)', async () => {
    const golden = byName('refund-approval');
    const recorded = await load(golden);
    const flow = golden.flow();
    flow.steps = flow.steps.filter((step) => step.id !== 'cool');
    flow.output = { notified: '=steps.notify.output' };
    const { thrown, probe } = await replay(flow, recorded, golden.options);
    expect(thrown).toBeUndefined();
    expect(probe.unconsumed()).toEqual(['cool']);
  });

  it('replays a tool failure the model recovered from exactly as recorded', async () => {
    const recorded = await load(byName('agent-tools'));
    expect(recorded.journal['agent/tool#1.1']).toMatchObject({ kind: 'tool', error: { message: 'division by zero' } });
    expect(recorded.trail).toContain('failed:agent/tool#1.1');
    expect(recorded.result).toHaveProperty('output');
  });

  it('compares event order within a concurrency lane, so a reordered step is caught', async () => {
    const recorded = await load(byName('fanout-map'));
    const events = [...recorded.events];
    const started = events.findIndex((e) => e.type === 'step.started' && e.stepId === 'each[0]/label');
    const completed = events.findIndex((e) => e.type === 'step.completed' && e.stepId === 'each[0]/kind/strip');
    [events[started], events[completed]] = [events[completed]!, events[started]!];
    expect(eventLanes(events)).not.toEqual(eventLanes(recorded.events));
  });

  it('ignores how sibling lanes interleave, and keeps tool calls #1.1 and #1.10 apart', () => {
    const ev = (stepId: string, type: 'step.started' | 'step.completed' = 'step.started') =>
      type === 'step.started'
        ? ({ type, stepId, stepType: 'tool' } as const)
        : ({ type, stepId, output: null } as const);
    const a = [ev('fan'), ev('fan.a/x'), ev('fan.b/y'), ev('fan.a/x', 'step.completed'), ev('fan', 'step.completed')];
    const b = [ev('fan'), ev('fan.b/y'), ev('fan.a/x'), ev('fan.a/x', 'step.completed'), ev('fan', 'step.completed')];
    expect(eventLanes(a)).toEqual(eventLanes(b));
    const lanes = eventLanes([ev('agent/tool#1.1'), ev('agent/tool#1.10')]);
    expect(lanes['agent/tool#1.10/']).toEqual([ev('agent/tool#1.10')]);
  });
});
