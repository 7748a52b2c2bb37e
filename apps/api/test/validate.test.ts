import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.cleanup());

describe('weft validate', () => {
  it('accepts a valid flow', async () => {
    const file = await ws.write('ok.json', flow('ok-flow', [{ id: 'a', type: 'transform', value: 1 }]));
    const [text, json] = await Promise.all([ws.cli(['validate', file]), ws.cli(['validate', file, '--json'])]);
    expect(text).toMatchObject({ code: 0 });
    expect(text.stdout).toContain('✓ ok-flow: valid');
    expect(json.code).toBe(0);
    expect(lastJson(json.stdout)).toEqual({ ok: true });
  });

  it('lists every error with its path and step, in text and --json', async () => {
    const file = await ws.write(
      'dupes.json',
      flow('dupes', [
        { id: 'a', type: 'transform', value: 1 },
        { id: 'a', type: 'transform', value: 2 },
        { id: 'b', type: 'transform', value: '=steps.nowhere.output' },
      ]),
    );
    const [text, json] = await Promise.all([ws.cli(['validate', file]), ws.cli(['validate', file, '--json'])]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/✗ dupes: \d+ problems/);
    expect(text.stdout).toMatch(/steps\[1\]\.id \(step a\): duplicate step id 'a'/);
    expect(text.stdout).toMatch(/\(step b\): .*nowhere/);

    expect(json.code).toBe(1);
    const result = lastJson(json.stdout) as {
      ok: boolean;
      errors: { stepId: string; path: string; message: string }[];
    };
    expect(result.ok).toBe(false);
    expect(result.errors).toContainEqual({
      stepId: 'a',
      path: 'steps[1].id',
      message: expect.stringContaining("duplicate step id 'a'"),
    });
    expect(result.errors.some((error) => error.stepId === 'b')).toBe(true);
  });

  it('names an unknown step type and lists the known ones', async () => {
    const file = await ws.write('unknown.json', flow('unknown', [{ id: 'x', type: 'frobnicate' }]));
    const result = await ws.cli(['validate', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('steps[0].type (step x): unknown step type; expected one of: llm,');
  });

  it('reports malformed JSON with line and column, and a missing file', async () => {
    const file = await ws.write('broken.json', '{\n  "irVersion": 1,\n  "id": "x"\n  "steps": []\n}\n');
    const [text, json, missing] = await Promise.all([
      ws.cli(['validate', file]),
      ws.cli(['validate', file, '--json']),
      ws.cli(['validate', `${ws.dir}/nope.json`]),
    ]);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/broken\.json is not valid JSON \(line 4, column 3\)/);
    expect(json.code).toBe(1);
    expect(lastJson(json.stdout)).toMatchObject({ ok: false, errors: [{ message: expect.stringMatching(/line 4/) }] });

    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/flow file not found: .*nope\.json/);
  });

  it('checks spawn targets against the flow folder (or --flows)', async () => {
    const file = await ws.write('parent.json', flow('parent', [{ id: 'sub', type: 'spawn', flow: 'missing-child' }]));
    const result = await ws.cli(['validate', file, '--json']);
    expect(result.code).toBe(1);
    expect(lastJson(result.stdout)).toMatchObject({
      ok: false,
      errors: [{ stepId: 'sub', message: expect.stringContaining('missing-child') }],
    });
  });
});
