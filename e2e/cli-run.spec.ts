/**
 * A run started elsewhere shows live: `weft run <flow.json> --server <url>` (the CLI, a child
 * process) starts a flow that sleeps; the editor lists the run as it starts (runs.statusChanges),
 * opens it on the canvas while it is running (#/flows/<id>/runs/<runId>) and watches it finish.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, ROOT } from './support/app.ts';

const FLOW = {
  irVersion: 1,
  id: 'cli-nap',
  name: 'CLI nap',
  input: { type: 'object', properties: { who: { type: 'string' } } },
  steps: [
    { id: 'nap', type: 'sleep', duration: '5s' },
    { id: 'greet', type: 'transform', value: '=input.who' },
  ],
};

describe('a run started from the CLI', () => {
  let editor: Editor | undefined;
  let cli: ChildProcess | undefined;

  beforeAll(async () => {
    editor = await openEditor();
  });

  afterAll(async () => {
    if (cli && cli.exitCode === null) cli.kill('SIGKILL');
    await editor?.close();
  });

  it('is opened in the editor while it runs and watched to the end', async () => {
    const { page, app, errors } = editor!;
    const file = join(app.dataDir, 'cli-nap.json');
    await writeFile(file, JSON.stringify(FLOW));
    let cliOut = '';
    cli = spawn(
      process.execPath,
      [join(ROOT, 'apps/api/src/cli/main.ts'), 'run', file, '--server', app.api, '--input', '{"who":"cli"}'],
      { cwd: ROOT, env: { ...process.env, WEFT_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cli.stdout?.on('data', (chunk: Buffer) => {
      cliOut += chunk.toString();
    });
    cli.stderr?.on('data', (chunk: Buffer) => {
      cliOut += chunk.toString();
    });
    const cliExit = new Promise<number | null>((done) => cli!.once('exit', (code) => done(code)));

    // The CLI imports the flow, then starts the run on the server.
    await expect
      .poll(
        async () => {
          const answer = (await (await fetch(`${app.api}/trpc/runs.list`)).json()) as {
            result: { data: { id: string; status: string }[] };
          };
          return answer.result.data.length;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(1);

    await page.goto(`${app.url}#/flows/cli-nap`);
    const runLink = page.getByRole('link', { name: /^Open run .* \(running\)$/ });
    await runLink.waitFor({ timeout: 10_000 });
    await runLink.click();
    await page.waitForURL(/#\/flows\/cli-nap\/runs\/[^/]+$/);

    // Live while it runs: the sleep node is busy, the run is not over.
    const nap = page.getByTestId('node-nap');
    await expect.poll(() => nap.getAttribute('data-status'), { timeout: 10_000 }).toMatch(/running|waiting/);
    expect(await page.getByTestId('run-status').getAttribute('data-status')).toMatch(/running|waiting/);

    // …and it finishes on screen, with its output.
    await expect.poll(() => nap.getAttribute('data-status'), { timeout: 20_000 }).toBe('completed');
    await expect
      .poll(() => page.getByTestId('run-status').getAttribute('data-status'), { timeout: 10_000 })
      .toBe('completed');
    await expect.poll(() => page.getByTestId('node-greet').getAttribute('data-status')).toBe('completed');
    expect(await page.getByRole('region', { name: 'Run output' }).textContent()).toContain('cli');
    // The runs list caught up too.
    await page.getByRole('link', { name: /^Open run .* \(completed\)$/ }).waitFor({ timeout: 10_000 });

    expect(await cliExit, cliOut).toBe(0);
    expect(errors, app.output()).toEqual([]);
  });
});
