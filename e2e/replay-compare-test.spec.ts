/**
 * Issue 14 in the editor: open a past run, replay it from a step with an edited input (the
 * preview says what is reused, what runs again and which side effects fire again, which the user
 * confirms), watch the replay (its reused checkpoints marked, its lineage linking the source),
 * compare it with its source on the canvas, save it as a test, and run the test from the editor
 * and with `weft test` over the same tests folder. Then two versions of the flow compared.
 *
 * The flow works offline: two `mock:echo` llm steps (the first reads only the topic, so a replay
 * with another tone reuses it), a `code` step (a side effect a replay must confirm) and a
 * transform. The server's tests folder (WEFT_TESTS_DIR) is `<project>/tests`, and the flow's
 * document sits in `<project>`, where `weft test` looks for flows by default.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Editor, openEditor, ROOT, SCREENSHOTS } from './support/app.ts';
import { trpcCall } from './support/trpc.ts';

const FLOW = {
  irVersion: 1,
  id: 'brief-writer',
  name: 'Brief writer',
  input: {
    type: 'object',
    properties: { topic: { type: 'string' }, tone: { type: 'string' } },
    required: ['topic', 'tone'],
  },
  steps: [
    { id: 'research', type: 'llm', model: 'mock:echo', prompt: 'Notes on {{ input.topic }}' },
    {
      id: 'write',
      type: 'llm',
      model: 'mock:echo',
      prompt: 'In a {{ input.tone }} tone: {{ steps.research.output.text }}',
    },
    {
      id: 'count',
      type: 'code',
      source: "return { words: args.text.split(' ').length };",
      args: { text: '=steps.write.output.text' },
    },
    { id: 'brief', type: 'transform', value: { text: '=steps.write.output.text', words: '=steps.count.output.words' } },
  ],
};

describe('replay from a step, compare, and keep the run as a test', () => {
  let editor: Editor | undefined;
  let project = '';

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'weft-e2e-project-'));
    await mkdir(join(project, 'tests'));
    await writeFile(join(project, `${FLOW.id}.json`), `${JSON.stringify(FLOW, null, 2)}\n`);
    editor = await openEditor({ env: { WEFT_TESTS_DIR: join(project, 'tests') } });
    await mkdir(SCREENSHOTS, { recursive: true });
    await api('flows.create', { doc: FLOW }, 'POST');
  });

  afterAll(async () => {
    await editor?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  /** A tRPC call over HTTP to this spec's server. */
  function api<T>(path: string, input: unknown, method: 'GET' | 'POST' = 'GET'): Promise<T> {
    return trpcCall<T>(editor!.app.api, path, input, method);
  }

  /** Runs `fn`; on failure saves a screenshot named after the step, then rethrows. */
  async function guarded(name: string, fn: (page: Page) => Promise<void>) {
    const { page, app, errors } = editor!;
    try {
      await fn(page);
    } catch (error) {
      await page.screenshot({ path: join(SCREENSHOTS, `failure-${name}.png`) }).catch(() => undefined);
      throw new Error(`${(error as Error).message}\n--- server output ---\n${app.output().slice(-4000)}`, {
        cause: error,
      });
    }
    expect(errors, app.output()).toEqual([]);
  }

  const runStatus = (page: Page) => page.getByTestId('run-status').getAttribute('data-status');
  const compareMark = (page: Page, id: string) =>
    page.getByTestId(`node-${id}`).getByTestId('node-compare').getAttribute('data-compare');

  it('replays a run from a step with an edited input, compares it with its source, and tests it', async () => {
    await guarded('replay-compare-test', async (page) => {
      const { app } = editor!;

      // A run of the flow, started from the editor.
      await page.goto(`${app.url}#/flows/${FLOW.id}`);
      await page.getByRole('textbox', { name: 'Input topic' }).fill('otters');
      await page.getByRole('textbox', { name: 'Input tone' }).fill('dry');
      await page.getByRole('button', { name: 'Run flow' }).click();
      await expect.poll(() => runStatus(page), { timeout: 20_000 }).toBe('completed');

      // Opened as a past run from the runs list.
      await page.getByRole('link', { name: /^Open run .* \(completed\)$/ }).click();
      await page.waitForURL((url) => /\/runs\/[^/?]+/.test(url.hash));
      const sourceRunId = runIdOf(page.url());
      await expect.poll(() => runStatus(page)).toBe('completed');

      // "Edit output…" pins the step's model turn, starting from its recorded text.
      await page.getByTestId('node-write').click();
      const inspector = page.getByRole('region', { name: 'Inspector' });
      await inspector.getByRole('button', { name: 'Edit output of write and replay' }).click();
      const pinDialog = page.getByRole('dialog', { name: 'Replay from write' });
      expect(await pinDialog.getByRole('checkbox', { name: /^Edit this step's output/ }).isChecked()).toBe(true);
      const pin = pinDialog.getByRole('textbox', { name: 'Pinned value of write/llm#1' });
      expect(JSON.parse(await pin.inputValue())).toEqual({ text: 'In a dry tone: Notes on otters' });
      await pin.fill('{ "text": "Pinned words" }');
      await expect
        .poll(() => pinDialog.getByTestId('replay-reused').textContent(), { timeout: 10_000 })
        .toMatch(/1 pinned value$/);
      expect(await pinDialog.getByTestId('replay-rerun').textContent()).not.toContain('write/llm#1');
      await pinDialog.getByRole('button', { name: 'Cancel' }).click();
      await pinDialog.waitFor({ state: 'detached' });

      // Replay from `write` with another tone: the step is selected, press "Replay from here".
      await inspector.getByRole('button', { name: 'Replay from write' }).click();
      const dialog = page.getByRole('dialog', { name: 'Replay from write' });
      const input = dialog.getByRole('textbox', { name: 'Flow input (JSON)' });
      // Prefilled with the run's input.
      expect(JSON.parse(await input.inputValue())).toEqual({ topic: 'otters', tone: 'dry' });

      // A broken input is named, and nothing starts.
      await input.fill('{ "topic": "otters", ');
      await dialog.getByRole('alert').filter({ hasText: 'Flow input is not valid JSON' }).waitFor();
      expect(await dialog.getByRole('button', { name: 'Start replay' }).isDisabled()).toBe(true);
      await input.fill(JSON.stringify({ topic: 'otters', tone: 'cheerful' }, null, 2));

      // The preview: `research` (the topic only) is reused, write / count / brief run again,
      // and the code step is named as a side effect to confirm.
      const preview = dialog.getByRole('region', { name: 'Replay preview' });
      await expect
        .poll(() => preview.getByTestId('replay-reused').textContent(), { timeout: 10_000 })
        .toMatch(/^1 checkpoint reused · saves \d+ tokens/);
      expect(await preview.getByTestId('replay-rerun').textContent()).toContain('write/llm#1');
      const sideEffects = preview.getByRole('group', { name: 'Side effects that fire again' });
      expect(await sideEffects.textContent()).toContain('count');
      const start = dialog.getByRole('button', { name: 'Start replay' });
      expect(await start.isDisabled()).toBe(true);
      await dialog.getByRole('checkbox', { name: 'Run these side effects again' }).check();
      await expect.poll(() => start.isDisabled()).toBe(false);
      await page.screenshot({ path: join(SCREENSHOTS, 'replay-dialog.png') });
      await start.click();

      // The replay opens live on the canvas, with its lineage and its reused checkpoint marked.
      await page.waitForURL((url) => /\/runs\/[^/?]+/.test(url.hash) && runIdOf(url.href) !== sourceRunId);
      const replayRunId = runIdOf(page.url());
      await expect.poll(() => runStatus(page), { timeout: 20_000 }).toBe('completed');
      const lineage = page.getByTestId('replay-of');
      await expect.poll(() => lineage.textContent()).toBe(`↺ Replay of run ${sourceRunId} from step write`);
      await page.getByTestId('node-research').getByTestId('node-reused').waitFor();
      expect(await page.getByTestId('node-write').getByTestId('node-reused').count()).toBe(0);
      expect(await page.getByTestId('run-output').textContent()).toContain('In a cheerful tone: Notes on otters');
      await page.getByTestId('node-research').click();
      const reusedTurn = inspector.getByTestId('run-step-research/llm#1');
      await reusedTurn.getByText('↺ reused').waitFor();
      await reusedTurn.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'replay-run.png') });

      // Compare with its source: research the same, write different (the first divergence).
      const compare = page.getByRole('region', { name: 'Compare' });
      await expect
        .poll(() => compare.getByRole('combobox', { name: 'Run to compare with' }).inputValue())
        .toBe(sourceRunId);
      await compare.getByRole('button', { name: 'Compare runs' }).click();
      await expect.poll(() => compareMark(page, 'write')).toBe('different');
      expect(await compareMark(page, 'research')).toBe('same');
      expect(await compareMark(page, 'count')).toBe('different');
      await page.getByTestId('node-write').getByTestId('node-first-divergence').waitFor();
      await page.getByRole('complementary', { name: 'Comparison legend' }).waitFor();
      expect(await compare.getByTestId('first-divergence').textContent()).toBe('First divergence: write');
      // Per step, side by side: the model text differs by one word (A, this replay, on the left).
      await page.getByTestId('node-write').click();
      const step = inspector.getByTestId('compare-step-write');
      const output = step.getByRole('figure', { name: 'Output: different' });
      await output.waitFor();
      expect(await output.locator('del.diff-removed').allTextContents()).toEqual(['cheerful']);
      expect(await output.locator('ins.diff-added').allTextContents()).toEqual(['dry']);
      await step.getByTestId('step-deltas').waitFor();
      await step.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'compare-runs.png') });

      // The source lists its replays.
      await page.getByRole('link', { name: `Open source run ${sourceRunId}` }).click();
      await page.waitForURL((url) => /\/runs\//.test(url.hash) && runIdOf(url.href) === sourceRunId);
      await page.getByRole('link', { name: `Open replay ${replayRunId} (completed)` }).click();
      await page.waitForURL((url) => /\/runs\//.test(url.hash) && runIdOf(url.href) === replayRunId);
      await expect.poll(() => runStatus(page)).toBe('completed');

      // Save the replay as a test, then run it from the editor.
      await page.getByRole('button', { name: 'Save run as test' }).click();
      const save = page.getByRole('dialog', { name: 'Save run as a test' });
      await save.getByRole('textbox', { name: 'Test name (optional)' }).fill('cheerful brief');
      await save.getByRole('radio', { name: 'Exactly' }).check();
      await save.getByRole('checkbox', { name: 'The step sequence must match' }).check();
      await save.getByRole('button', { name: 'Save test' }).click();
      await save.waitFor({ state: 'detached' });
      const tests = page.getByRole('region', { name: 'Tests' });
      const testCase = tests.getByTestId('test-cheerful brief');
      await testCase.waitFor();
      expect(await testCase.textContent()).toContain('step sequence + output exactly');
      await tests.getByRole('button', { name: 'Run all tests' }).click();
      await expect.poll(() => testCase.getAttribute('data-result'), { timeout: 30_000 }).toBe('passed');
      expect(await tests.getByTestId('tests-summary').textContent()).toBe('1 passed, 0 failed');
      // The "saved" notification would cover the panel.
      for (const dismiss of await page.getByRole('button', { name: 'Dismiss notification' }).all())
        await dismiss.click();
      await testCase.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'tests-panel.png') });

      // …and from the CLI, over the same tests folder (the flow's document sits above it).
      const cli = await runCli(['test', join(project, 'tests')], join(project, 'cli-data'));
      expect(cli.code, cli.out).toBe(0);
      expect(cli.out).toMatch(/1 case: 1 passed, 0 failed/);
    });
  });

  it('compares two versions of the flow on the canvas', async () => {
    await guarded('compare-versions', async (page) => {
      const { app } = editor!;
      // Version 2: `write` says something else, `polish` is new, `count` is gone.
      const v2 = {
        ...FLOW,
        steps: [
          FLOW.steps[0],
          { ...FLOW.steps[1], prompt: 'Briefly, in a {{ input.tone }} tone: {{ steps.research.output.text }}' },
          { id: 'polish', type: 'transform', value: '=steps.write.output.text' },
          { id: 'brief', type: 'transform', value: { text: '=steps.polish.output' } },
        ],
      };
      await api('flows.save', { id: FLOW.id, doc: v2 }, 'POST');
      await page.goto(`${app.url}#/flows/${FLOW.id}`);
      await page.getByTestId('node-polish').waitFor();
      const compare = page.getByRole('region', { name: 'Compare' });
      await expect
        .poll(() => compare.getByRole('combobox', { name: 'Flow version to compare with' }).inputValue())
        .toBe('1');
      await compare.getByRole('button', { name: 'Compare versions' }).click();
      await expect.poll(() => compareMark(page, 'write')).toBe('changed');
      expect(await compareMark(page, 'polish')).toBe('added');
      expect(await compareMark(page, 'research')).toBe('same');
      expect(await compareMark(page, 'brief')).toBe('changed');
      expect(await compare.getByRole('list', { name: 'Steps not on this canvas' }).textContent()).toContain(
        'count — removed in v2 (was in v1)',
      );
      await page.getByTestId('node-write').click();
      const changes = page.getByRole('list', { name: 'Config changes of write' });
      expect(await changes.textContent()).toContain('prompt');
      await changes.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'compare-versions.png') });
      await compare.getByRole('button', { name: 'Stop comparing' }).click();
      await page.getByRole('complementary', { name: 'Comparison legend' }).waitFor({ state: 'detached' });
    });
  });

  it('fails the saved test once the flow changed, naming the first difference', async () => {
    await guarded('tests-failing', async (page) => {
      // Version 2 (the previous case) is the flow's current version, which a case runs.
      const tests = page.getByRole('region', { name: 'Tests' });
      const testCase = tests.getByTestId('test-cheerful brief');
      await testCase.waitFor();
      await tests.getByRole('button', { name: 'Run test cheerful brief' }).click();
      await expect.poll(() => testCase.getAttribute('data-result'), { timeout: 30_000 }).toBe('failed');
      const difference = await testCase.getByTestId('test-difference').textContent();
      expect(difference?.length).toBeGreaterThan(0);
      await testCase.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'tests-failed.png') });
    });
  });
});

/** `weft <args>` as a child process: its exit code and everything it printed. */
function runCli(args: string[], dataDir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, 'apps/api/src/cli/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, WEFT_TOKEN: '', WEFT_SERVER: '', NO_COLOR: '1', WEFT_DATA: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', fail);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

/** The run a run-view address shows: `#/flows/<id>/runs/<runId>` or `#/runs/<runId>?at=…&step=…`. */
function runIdOf(url: string): string {
  return decodeURIComponent(url.split('/runs/')[1]!.split('?')[0]!);
}
