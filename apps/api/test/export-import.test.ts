import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flow, lastJson, type Workspace, workspace } from './helpers.ts';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.cleanup());

const greet = flow(
  'greet',
  [
    { id: 'hello', name: 'Say hello', type: 'transform', value: 'Hello, {{ input.name }}!' },
    {
      id: 'call',
      type: 'http',
      url: 'https://api.example/{{ input.name }}',
      headers: { authorization: 'Bearer sk-live-123456' },
    },
  ],
  { output: { greeting: '=steps.hello.output' } },
);

describe('weft export / weft import', () => {
  it('exports TypeScript to stdout or -o, without the secret, and imports it back', async () => {
    const file = await ws.write('greet.json', greet);
    const out = join(ws.dir, 'greet.ts');
    const [printed, written] = await Promise.all([
      ws.cli(['export', file, '--target', 'weft']),
      ws.cli(['export', file, '--target', 'weft', '-o', out]),
    ]);
    expect(printed.code).toBe(0);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the exported TypeScript's own template literal.
    expect(printed.stdout).toContain("await step.transform('hello', { value: template`Hello, ${input.name}!` });");
    expect(printed.stdout).toContain('// Say hello');
    expect(printed.stdout).toContain('process.env.CALL_AUTHORIZATION');
    expect(printed.stdout).not.toContain('sk-live-123456');
    expect(written.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(printed.stdout);

    // The secret header cannot come back (the IR cannot read the environment): say where.
    const refused = await ws.cli(['import', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/greet\.ts:\d+:\d+ process\.env\.CALL_AUTHORIZATION.*cannot read the environment/);
  });

  it('imports a weft module to JSON, and refuses a broken one with file:line:col and writes nothing', async () => {
    const { headers: _secret, ...call } = (greet.steps as Record<string, unknown>[])[1]!;
    const file = await ws.write('plain.json', { ...greet, steps: [(greet.steps as unknown[])[0], call] });
    const ts = join(ws.dir, 'plain.ts');
    expect((await ws.cli(['export', file, '--target', 'weft', '-o', ts])).code).toBe(0);
    const json = join(ws.dir, 'back.json');
    const imported = await ws.cli(['import', ts, '-o', json]);
    expect(imported.code).toBe(0);
    const back = JSON.parse(readFileSync(json, 'utf8'));
    expect(back.steps[0]).toEqual({
      id: 'hello',
      name: 'Say hello',
      type: 'transform',
      value: 'Hello, {{ input.name }}!',
    });
    expect(back.output).toEqual({ greeting: '=steps.hello.output' });

    const broken = await ws.write(
      'broken.ts',
      "import { defineFlow } from '@weft/engine';\nexport default defineFlow({ id: 'b', name: 'B' }, async ({ step }) => {\n  await step.nap('x', {});\n});\n",
    );
    const brokenOut = join(ws.dir, 'broken.json');
    const refused = await ws.cli(['import', broken, '-o', brokenOut]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${broken}:3:9 step.nap is not a step type`);
    expect(existsSync(brokenOut)).toBe(false);
  });

  it('weft run runs a TypeScript flow as it runs the JSON one', async () => {
    const file = await ws.write(
      'hello.json',
      flow('hello', [{ id: 'hi', type: 'transform', value: 'Hi {{ input.name }}' }]),
    );
    const ts = join(ws.dir, 'hello.ts');
    expect((await ws.cli(['export', file, '--target', 'weft', '-o', ts])).code).toBe(0);
    const [fromJson, fromTs] = await Promise.all([
      ws.cli(['run', file, '--input', '{"name":"Ada"}', '--json']),
      ws.cli(['run', ts, '--input', '{"name":"Ada"}', '--json']),
    ]);
    expect(lastJson(fromTs.stdout)).toMatchObject({ status: 'completed', output: 'Hi Ada' });
    expect(lastJson(fromTs.stdout).output).toEqual(lastJson(fromJson.stdout).output);
  });

  it('exports the inngest target as one file and the temporal target as two (-o is a folder)', async () => {
    const file = await ws.write('greet-durable.json', greet);
    const folder = join(ws.dir, 'greet-temporal');
    const [inngest, printed, written] = await Promise.all([
      ws.cli(['export', file, '--target', 'inngest']),
      ws.cli(['export', file, '--target', 'temporal']),
      ws.cli(['export', file, '--target', 'temporal', '-o', folder]),
    ]);
    expect(inngest.code).toBe(0);
    expect(inngest.stdout).toContain('export const greet = inngest.createFunction(');
    expect(inngest.stdout).not.toContain('sk-live-123456');

    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^\/\/ ---- greet\.workflow\.ts\n/);
    expect(printed.stdout).toContain('\n// ---- greet.activities.ts\n');
    expect(printed.stdout).not.toContain('sk-live-123456');
    expect(written.code).toBe(0);
    const workflow = readFileSync(join(folder, 'greet.workflow.ts'), 'utf8');
    const activities = readFileSync(join(folder, 'greet.activities.ts'), 'utf8');
    expect(workflow).toContain('export async function greet(input: Input): Promise<any> {');
    expect(activities).toContain('export async function httpRequest(');
    expect(printed.stdout).toBe(`// ---- greet.workflow.ts\n${workflow}\n// ---- greet.activities.ts\n${activities}`);

    const unknown = await ws.cli(['export', file, '--target', 'airflow']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('--target must be one of: weft, inngest, temporal');
  });
});
