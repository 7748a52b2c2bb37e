/**
 * The CLI with hostile flows, as a person at a terminal would run it: text from a flow never
 * reaches the terminal as control sequences, and JSON too deep to parse is an error naming where.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.cleanup());

// ESC and C1 sequences other than plain colour codes, and lone control characters but \t \n.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /\u001b(?!\[(?:0|1|2|22|3[0-7]|39|9[0-7])m)|[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f]/;

describe('weft with hostile text in a flow', () => {
  it('strips terminal control sequences from step ids, outputs and errors it prints', async () => {
    const evil =
      'title\u001b]0;pwned\u0007 clear\u001b[2J\u001b[H over\rwrite bell\u0007 csi\u009b31m clip\u001b]52;c;ZXZpbA==\u001b\\';
    const path = await ws.write(
      'evil.json',
      flow('evil', [
        { id: 'out', type: 'transform', name: evil, value: evil },
        { id: 'boom', type: 'fail', message: `failed: ${evil}` },
      ]),
    );
    const run = await ws.cli(['run', path], { env: { FORCE_COLOR: '1' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/failed: title\]0;pwned|failed: title/);
    expect(run.stdout + run.stderr).not.toMatch(UNSAFE);
    const runId = /run (run_[a-z0-9]+)/.exec(run.stderr)?.[1];
    expect(runId).toBeDefined();
    const show = await ws.cli(['runs', 'show', runId!], { env: { FORCE_COLOR: '1' } });
    expect(show.stdout).toMatch(/out/);
    expect(show.stdout + show.stderr).not.toMatch(UNSAFE);
  });

  it('says where a flow file nests too deeply instead of overflowing the stack', async () => {
    const deep = `{"irVersion":1,"id":"deep","name":"deep","steps":[{"id":"a","type":"transform","value":${'['.repeat(
      20_000,
    )}${']'.repeat(20_000)}}]}`;
    const path = await ws.write('deep.json', deep);
    const result = await ws.cli(['validate', path]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/nested more than 1000 levels deep.*at steps\[0\]\.value\[0\]\[0\]/);
    expect(result.stderr).not.toMatch(/call stack/);
  });
});
