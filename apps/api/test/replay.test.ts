/**
 * `weft runs replay` from the real CLI: a new run from a checkpoint of a past one, reusing
 * what completed before it (named in the --json line), pinning what it is told, and saying
 * clearly what it cannot do. (That reused checkpoints are not executed again, counted by a
 * server on loopback, is the conformance suite's replay case on every backend.)
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(async () => {
  await ws.cleanup();
});

const threeTurns = flow(
  'three-turns',
  [
    { id: 'a', type: 'llm', model: 'mock:echo', prompt: 'one' },
    { id: 'b', type: 'llm', model: 'mock:echo', prompt: 'two after {{ steps.a.output.text }}' },
    { id: 'c', type: 'llm', model: 'mock:echo', prompt: 'three after {{ steps.b.output.text }}' },
  ],
  { output: '=steps.c.output.text' },
);

describe('weft runs replay', () => {
  it('replays from a checkpoint, reusing the ones before it, and pins one to a given text', async () => {
    const file = await ws.write('three.json', threeTurns);
    const source = lastJson((await ws.cli(['run', file, '--json'])).stdout);
    expect(source).toMatchObject({ status: 'completed', output: 'three after two after one' });

    const replay = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'b', '--json']);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toMatch(/↺ replay of run \S+ from b as run \S+ · reusing 1 checkpoint: a\/llm#1/);
    expect(lastJson(replay.stdout)).toMatchObject({
      status: 'completed',
      output: 'three after two after one',
      replayOf: { runId: source.runId, checkpoint: 'b' },
      reused: ['a/llm#1'],
      pinned: [],
    });

    const pinned = await ws.cli([
      'runs',
      'replay',
      String(source.runId),
      '--from',
      'b',
      '--pin',
      'b/llm#1=changed my mind',
      '--json',
    ]);
    expect(pinned.code).toBe(0);
    expect(lastJson(pinned.stdout)).toMatchObject({
      status: 'completed',
      output: 'three after changed my mind',
      reused: ['a/llm#1'],
      pinned: ['b/llm#1'],
    });
  });

  it('asks before steps with side effects run again: refuses without --yes off a terminal, replays with it', async () => {
    const file = await ws.write(
      'effects.json',
      flow('effects', [
        { id: 'read', type: 'transform', value: 1 },
        { id: 'charge', type: 'code', source: 'return 42;' },
        { id: 'after', type: 'transform', value: '=steps.charge.output' },
      ]),
    );
    const source = lastJson((await ws.cli(['run', file, '--json'])).stdout);
    const refused = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'charge']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('run again: charge, after');
    expect(refused.stderr).toContain('these steps have side effects and would run again: charge (code); pass --yes');
    const accepted = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'charge', '--yes', '--json']);
    expect(accepted.code).toBe(0);
    expect(lastJson(accepted.stdout)).toMatchObject({ status: 'completed', output: 42 });
    // From after the side effect, nothing needs a yes: charge is answered from the journal.
    const later = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'after', '--json']);
    expect(lastJson(later.stdout)).toMatchObject({ status: 'completed', output: 42, reused: ['charge'] });
  });

  it('an edited input reuses only the calls it does not change; --live runs a step again; --json says what ran', async () => {
    const file = await ws.write(
      'topic.json',
      flow(
        'topic',
        [
          { id: 'a', type: 'llm', model: 'mock:echo', prompt: 'fixed' },
          { id: 'b', type: 'llm', model: 'mock:echo', prompt: 'about {{ input.topic }}' },
          { id: 'c', type: 'llm', model: 'mock:echo', prompt: '{{ steps.a.output.text }} + {{ steps.b.output.text }}' },
        ],
        { output: '=steps.c.output.text' },
      ),
    );
    const source = lastJson((await ws.cli(['run', file, '--input', '{"topic":"owls"}', '--json'])).stdout);
    expect(source).toMatchObject({ status: 'completed', output: 'fixed + about owls' });
    const edited = await ws.cli([
      'runs',
      'replay',
      String(source.runId),
      '--from',
      'c',
      '--input',
      '{"topic":"bats"}',
      '--json',
    ]);
    expect(edited.code).toBe(0);
    // The plan offered b's answer, but b is now asked about bats: it ran, and a did not.
    expect(lastJson(edited.stdout)).toMatchObject({
      status: 'completed',
      output: 'fixed + about bats',
      reused: ['a/llm#1'],
      executed: ['b/llm#1', 'c/llm#1'],
    });
    const live = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'c', '--live', 'a', '--json']);
    expect(live.stderr).toContain("not reused: a/llm#1 — step 'a' asked to run live");
    expect(lastJson(live.stdout)).toMatchObject({ reused: ['b/llm#1'], executed: ['a/llm#1', 'c/llm#1'] });
  });

  it('--version current replays onto the flow as it is now, and says what it cannot reuse', async () => {
    const dir = join(ws.dir, 'current-flows');
    await mkdir(dir);
    const original = flow(
      'evolving',
      [
        { id: 'a', type: 'llm', model: 'mock:echo', prompt: 'one' },
        { id: 'b', type: 'llm', model: 'mock:echo', prompt: 'two' },
        { id: 'c', type: 'llm', model: 'mock:echo', prompt: 'three' },
      ],
      { output: '=steps.c.output.text' },
    );
    const file = await ws.write('current-flows/evolving.json', original);
    const source = lastJson((await ws.cli(['run', file, '--json'])).stdout);
    const steps = (original as { steps: unknown[] }).steps;
    await ws.write('current-flows/evolving.json', {
      ...(original as object),
      version: 2,
      steps: [steps[0], { id: 'x', type: 'llm', model: 'mock:echo', prompt: 'inserted' }, ...steps.slice(1)],
    });
    const replay = await ws.cli([
      'runs',
      'replay',
      String(source.runId),
      '--from',
      'c',
      '--version',
      'current',
      '--flows',
      dir,
      '--json',
    ]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toContain('replay plan (flow version 2): reuse 1 checkpoint');
    expect(replay.stderr).toContain("not reused: b/llm#1 — comes after the added step 'x' in the new version");
    expect(lastJson(replay.stdout)).toMatchObject({
      status: 'completed',
      reused: ['a/llm#1'],
      executed: ['x/llm#1', 'b/llm#1', 'c/llm#1'],
    });
    const bad = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'c', '--version', 'newest']);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--version must be 'original' or 'current', got 'newest'");
  });

  it('names what is wrong: no --from, an unknown checkpoint, an unknown run', async () => {
    const file = await ws.write('three-again.json', threeTurns);
    const source = lastJson((await ws.cli(['run', file, '--json'])).stdout);
    const noFrom = await ws.cli(['runs', 'replay', String(source.runId)]);
    expect(noFrom.code).not.toBe(0);
    expect(noFrom.stderr).toContain('--from <checkpoint> is required');
    const unknown = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'zzz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/from: run has no checkpoint 'zzz'; it has: a, a\/llm#1, b/);
    const noRun = await ws.cli(['runs', 'replay', 'run_nope', '--from', 'b']);
    expect(noRun.code).toBe(1);
    expect(noRun.stderr).toContain("unknown run 'run_nope'");
  });

  it('refuses an inline --pin that is JSON with a "__proto__" key, naming the flag, instead of pinning it as text', async () => {
    const file = await ws.write('three-proto.json', threeTurns);
    const source = lastJson((await ws.cli(['run', file, '--json'])).stdout);
    const runsBefore = (await ws.cli(['runs', 'list', '--json'])).stdout;
    for (const [pin, path] of [
      ['{"__proto__":1}', '__proto__'],
      ['{"text":"x","usage":{"__proto__":{"admin":true}}}', 'usage.__proto__'],
    ]) {
      const refused = await ws.cli(['runs', 'replay', String(source.runId), '--from', 'b', '--pin', `b/llm#1=${pin}`]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain(`--pin b/llm#1: ${path}: "__proto__" keys are not allowed`);
    }
    // Refused before anything ran: no replay was recorded.
    expect((await ws.cli(['runs', 'list', '--json'])).stdout).toBe(runsBefore);
  });
});

describe('weft runs diff', () => {
  const triage = flow(
    'triage',
    [
      { id: 'score', type: 'transform', value: '=input.n * 10' },
      {
        id: 'route',
        type: 'branch',
        cases: [{ when: '=steps.score.output > 50', steps: [{ id: 'escalate', type: 'transform', value: 'page' }] }],
        else: [{ id: 'queue', type: 'transform', value: 'later' }],
      },
    ],
    { output: { score: '=steps.score.output' } },
  );

  it('shows where two runs diverge at a branch, what changed, and exits 1; 0 for a run and its replay', async () => {
    const file = await ws.write('triage.json', triage);
    const high = lastJson((await ws.cli(['run', file, '--input', '{"n":9}', '--json'])).stdout);
    const low = lastJson((await ws.cli(['run', file, '--input', '{"n":2}', '--json'])).stdout);
    const diff = await ws.cli(['runs', 'diff', String(high.runId), String(low.runId)]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain('first divergence: score');
    expect(diff.stdout).toMatch(/≠ score\s+output: 90 → 20/);
    expect(diff.stdout).toMatch(/− route\/escalate\s+only in A/);
    expect(diff.stdout).toMatch(/\+ route\/queue\s+only in B/);
    expect(diff.stdout).toContain('output: output.score: 90 → 20');
    const json = lastJson((await ws.cli(['runs', 'diff', String(high.runId), String(low.runId), '--json'])).stdout);
    expect(json).toMatchObject({ a: high.runId, b: low.runId, firstDivergence: 'score' });

    const replay = lastJson((await ws.cli(['runs', 'replay', String(high.runId), '--from', 'route', '--json'])).stdout);
    const same = await ws.cli(['runs', 'diff', String(high.runId), String(replay.runId)]);
    expect(same.stdout).toContain('every step the same');
    expect(same.code).toBe(0);
  });
});
