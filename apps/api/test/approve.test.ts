import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
let gated: string;
beforeAll(async () => {
  ws = await workspace();
  gated = await ws.write(
    'gated.json',
    flow(
      'gated',
      [
        { id: 'draft', type: 'transform', value: '=input.text' },
        { id: 'ok', type: 'approval', prompt: 'Publish {{ steps.draft.output }}?' },
        {
          id: 'route',
          type: 'branch',
          cases: [
            { when: '=steps.ok.output.approved', steps: [{ id: 'publish', type: 'transform', value: 'published' }] },
          ],
          else: [{ id: 'drop', type: 'transform', value: 'dropped' }],
        },
      ],
      { output: { result: '=steps.route.output', by: '=steps.ok.output.by', comment: '=steps.ok.output.comment' } },
    ),
  );
});
afterAll(() => ws.cleanup());

describe('approvals', () => {
  it('--approve decides in advance and the run completes', async () => {
    const result = await ws.cli(['run', gated, '--input', '{"text":"post"}', '--approve', 'ok=yes', '--json']);
    expect(result.code).toBe(0);
    expect(lastJson(result.stdout)).toMatchObject({ status: 'completed', output: { result: 'published' } });
    expect(result.stderr).toMatch(/⏸ ok +approval requested: "Publish post\?"/);
    expect(result.stderr).toMatch(/☑ ok +approved by \S+/);
  });

  it('parks without a decision (exit 2), and `weft approve` in a new process completes the run', async () => {
    const parked = await ws.cli(['run', gated, '--input', '{"text":"post"}', '--json']);
    expect(parked.code).toBe(2);
    const json = lastJson(parked.stdout) as { runId: string; status: string; waiting: { command: string }[] };
    expect(json.status).toBe('waiting');
    const command = `weft approve ${json.runId} ok yes|no`;
    expect(json.waiting).toMatchObject([{ stepId: 'ok', prompt: 'Publish post?', command }]);
    expect(parked.stderr).toContain(`run ${json.runId}`);
    expect(parked.stderr).toContain(command);

    // The first process is gone; the decision and the rest of the run happen in another one.
    const approved = await ws.cli([
      'approve',
      json.runId,
      'ok',
      'yes',
      '--comment',
      'ship it',
      '--by',
      'ann',
      '--json',
    ]);
    expect(approved.code).toBe(0);
    expect(lastJson(approved.stdout)).toEqual({
      runId: json.runId,
      status: 'completed',
      output: { result: 'published', by: 'ann', comment: 'ship it' },
    });
    expect(approved.stderr).toMatch(/☑ ok +approved by ann — "ship it"/);
    expect(approved.stderr).toMatch(/✓ route\/publish/);
    expect(approved.stderr).toMatch(/✓ completed in/);

    const again = await ws.cli(['approve', json.runId, 'ok', 'no']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already decided: approved by ann/);
  });

  it('a rejection takes the other branch', async () => {
    const parked = await ws.cli(['run', gated, '--input', '{"text":"x"}', '--json']);
    const { runId } = lastJson(parked.stdout) as { runId: string };
    const rejected = await ws.cli(['approve', runId, 'ok', 'no', '--json']);
    expect(rejected.code).toBe(0);
    expect(lastJson(rejected.stdout)).toMatchObject({ status: 'completed', output: { result: 'dropped' } });
    expect(rejected.stderr).toMatch(/☒ ok +rejected by/);
  });

  it('names a step that is not an approval of the run', async () => {
    const parked = await ws.cli(['run', gated, '--input', '{"text":"x"}', '--json']);
    const { runId } = lastJson(parked.stdout) as { runId: string };
    const wrong = await ws.cli(['approve', runId, 'draft', 'yes']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`run ${runId} has no approval at step 'draft'`);
    expect(wrong.stderr).toContain(`weft approve ${runId} ok yes|no`);
    const unknown = await ws.cli(['approve', 'run_nope', 'ok', 'yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown run 'run_nope'");
  });

  it('an approval inside a child run: approve the child, which then wakes its parent; spawns after it still find flows', async () => {
    const lib = join(ws.dir, 'nested');
    await mkdir(lib, { recursive: true });
    await writeFile(
      join(lib, 'review.json'),
      JSON.stringify(
        flow(
          'review',
          [
            { id: 'check', type: 'approval', prompt: 'Is {{ input.n }} fine?' },
            { id: 'after', type: 'spawn', flow: 'square', input: { n: '=input.n' } },
          ],
          { output: { approved: '=steps.check.output.approved', square: '=steps.after.output' } },
        ),
      ),
    );
    await writeFile(
      join(lib, 'square.json'),
      JSON.stringify(flow('square', [{ id: 'sq', type: 'transform', value: '=input.n * input.n' }])),
    );
    const main = join(lib, 'main.json');
    await writeFile(
      main,
      JSON.stringify(flow('main', [{ id: 'rev', type: 'spawn', flow: 'review', input: { n: '=input.n' } }])),
    );

    const parked = await ws.cli(['run', main, '--input', '{"n":3}', '--json']);
    expect(parked.code).toBe(2);
    const { runId, waiting } = lastJson(parked.stdout) as {
      runId: string;
      waiting: { runId: string; command: string }[];
    };
    expect(waiting).toEqual([
      expect.objectContaining({
        runId: `${runId}~rev`,
        stepId: 'check',
        command: `weft approve ${runId}~rev check yes|no`,
      }),
    ]);
    expect(parked.stderr).toMatch(/⏸ rev › check +approval requested: "Is 3 fine\?"/);

    // Given the parent's id, the approval in its child is found.
    const done = await ws.cli(['approve', runId, 'check', 'yes', '--json']);
    expect(done.code).toBe(0);
    expect(lastJson(done.stdout)).toEqual({
      runId,
      status: 'completed',
      output: { approved: true, square: 9 },
    });
    expect(done.stderr).toMatch(/✓ rev › after › sq +\d+ms 9/);
    expect(done.stderr).toMatch(/✓ rev +\S*\s*\{"approved":true,"square":9\}/);
  });
});
