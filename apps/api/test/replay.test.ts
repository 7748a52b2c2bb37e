/**
 * `weft runs replay` from the real CLI: a new run from a checkpoint of a past one, reusing
 * what completed before it (named in the --json line), pinning what it is told, and saying
 * clearly what it cannot do. (That reused checkpoints are not executed again, counted by a
 * server on loopback, is the conformance suite's replay case on every backend.)
 */
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
