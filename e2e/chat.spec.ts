/**
 * Issue 15, a flow as a chat backend, in the browser (`#/chat/<flowId>/<chatId>`, the AI SDK's
 * `useChat` against `/api/chat`):
 *
 * 1. The research-agent example answers "What changed?" with its recorded model turns (sent
 *    through the page's testing hook `window.__weftChatFixtures`), the last turn of the step
 *    whose text the chat shows paced over a few seconds. The page is reloaded mid-answer: the
 *    answer resumes from the run's stream and completes, every text and tool part exactly once.
 * 2. A flow that parks on an `approval` step: Approve in the chat, the answer completes, the
 *    approval shows "approved". Another conversation with it is stopped while it waits.
 *
 * The chat's parts are found by their test ids (`chat-message` with `data-role`, `chat-text`,
 * `chat-tool` with `data-tool-call-id`, `chat-approval` and `chat-run` with `data-status`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTextSteps } from '../apps/api/src/server/chat/chat-stream.ts';
import { type DemoApi, startDemoApi } from '../packages/adapters/conformance/demo-api.ts';
import { type Editor, openEditor, ROOT, SCREENSHOTS } from './support/app.ts';
import { trpcCall } from './support/trpc.ts';

const EXAMPLES = join(ROOT, 'examples');
/** Where the example files say the demo API is (packages/adapters/conformance/examples.ts). */
const DEMO_DEFAULT_BASE = 'http://127.0.0.1:8787';
/** How long the shown answer's last recorded turn takes to stream. */
const STREAM_MS = 4000;

type FixtureTurn = { text?: string; object?: unknown; toolCalls?: unknown[]; streamMs?: number };
type Fixtures = Record<string, FixtureTurn[]>;
/** The chat page's testing hook: recorded turns sent as `fixtures` with each message. */
type ChatWindow = Window & { __weftChatFixtures?: unknown };

/** A flow that drafts a reply, asks a person, then answers (all offline: `mock:echo`). */
const APPROVAL_FLOW = {
  irVersion: 1,
  id: 'reply-with-approval',
  name: 'Reply with approval',
  input: { type: 'object', properties: { messages: { type: 'array' } } },
  steps: [
    { id: 'draft', type: 'llm', model: 'mock:echo', messages: '=input.messages' },
    { id: 'review', type: 'approval', prompt: 'Send this reply? {{ steps.draft.output.text }}' },
    {
      id: 'reply',
      type: 'llm',
      model: 'mock:echo',
      prompt: 'Approved by a person: {{ steps.draft.output.text }}',
    },
  ],
};

describe('the chat page', () => {
  let editor: Editor | undefined;
  let demo: DemoApi | undefined;

  beforeAll(async () => {
    demo = await startDemoApi();
    // The agent's page fetch goes to the demo API on loopback, which http steps refuse unless allowed.
    // The page sends recorded turns (`fixtures`, its testing hook) and typed run `input`: the
    // operator's choice, made here as scripts/start.sh makes it for the local demo.
    editor = await openEditor({ env: { WEFT_HTTP_ALLOW_PRIVATE: '1', WEFT_CHAT_CLIENT_OVERRIDES: 'fixtures,input' } });
  });

  afterAll(async () => {
    await editor?.close();
    await demo?.close();
  });

  const api = <T>(path: string, input: unknown, method: 'GET' | 'POST' = 'GET') =>
    trpcCall<T>(editor!.app.api, path, input, method);

  /** Runs `fn`; on failure saves a screenshot named after the step and adds the server's output. */
  async function guarded(name: string, fn: (page: Page) => Promise<void>) {
    const { page, app, errors } = editor!;
    try {
      await fn(page);
    } catch (error) {
      await page.screenshot({ path: join(SCREENSHOTS, `failure-chat-${name}.png`) }).catch(() => undefined);
      throw new Error(`${(error as Error).message}\n--- server output ---\n${app.output().slice(-4000)}`, {
        cause: error,
      });
    }
    expect(errors, app.output()).toEqual([]);
  }

  const assistant = (page: Page) => page.locator('[data-testid="chat-message"][data-role="assistant"]');
  const runPart = (page: Page) => assistant(page).last().getByTestId('chat-run');
  const chatIdOf = (page: Page) => /#\/chat\/[^/]+\/([^/?]+)$/.exec(page.url())?.[1] ?? '';

  /** Opens a new chat with the flow; returns its id (already in the address). */
  async function openChat(page: Page, flowId: string): Promise<string> {
    await page.goto(`${editor!.app.url}#/chat/${flowId}`);
    await page.waitForURL(new RegExp(`#/chat/${flowId}/[^/]+$`));
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    return chatIdOf(page);
  }

  async function send(page: Page, text: string) {
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  }

  it('resumes an answer after a reload and shows each part once', async () => {
    await guarded('resume', async (page) => {
      const base = demo!.baseUrl;
      // The flow tool `summarize` is the summarize-text flow, so it goes in first.
      for (const name of ['summarize-text', 'research-agent'])
        await api('flows.import', { json: await readFile(join(EXAMPLES, `${name}.json`), 'utf8') }, 'POST');
      const flow = await api<{ doc: Parameters<typeof chatTextSteps>[0] }>('flows.get', { id: 'research-agent' });

      // The recorded turns, pointed at this demo API; the shown step's last turn paced.
      const fixtures = JSON.parse(
        (await readFile(join(EXAMPLES, 'research-agent.fixtures.json'), 'utf8')).replaceAll(DEMO_DEFAULT_BASE, base),
      ) as Fixtures;
      const textSteps = [...chatTextSteps(flow.doc)];
      expect(textSteps.length).toBeGreaterThan(0);
      const expectedTexts: string[] = [];
      for (const stepId of textSteps) {
        const turns = fixtures[stepId] ?? [];
        expect(turns.length, `recorded turns of ${stepId}`).toBeGreaterThan(0);
        turns.at(-1)!.streamMs = STREAM_MS;
        for (const turn of turns) {
          // A turn's text as the model turn gives it (a structured turn's is its object as JSON).
          const text = turn.text ?? (turn.object === undefined ? '' : JSON.stringify(turn.object));
          if (text !== '') expectedTexts.push(text);
        }
      }
      const expectedTools = Object.values(fixtures)
        .flat()
        .reduce((count, turn) => count + (turn.toolCalls?.length ?? 0), 0);

      const chatId = await openChat(page, 'research-agent');
      await page.evaluate((value) => {
        (window as ChatWindow).__weftChatFixtures = value;
      }, fixtures);
      // `question` is filled from the message; `apiBase` is typed into the Input disclosure.
      // The disclosure is drawn once the flow has arrived (it may come after the message box):
      // wait for it, then open it if it started closed.
      const disclosure = page.locator('details.chat-input-disclosure');
      await disclosure.waitFor();
      const apiBase = page.getByRole('textbox', { name: 'Input apiBase' });
      if (!(await apiBase.isVisible())) await disclosure.locator('summary').click();
      await apiBase.fill(base);
      await send(page, 'What changed?');

      // Some of the answer is here, and the run goes on.
      const firstText = assistant(page).last().getByTestId('chat-text').first();
      await expect.poll(async () => ((await firstText.textContent().catch(() => '')) ?? '').length).toBeGreaterThan(0);
      const runId = (await runPart(page).getAttribute('data-run-id')) ?? '';
      expect(runId).not.toBe('');
      const before = await api<{ run: { status: string } }>('runs.get', { runId });
      expect(before.run.status).toBe('running');
      const partial = (await assistant(page).last().getByTestId('chat-text').allTextContents()).join('');
      expect(partial.length).toBeLessThan(expectedTexts.join('').length);

      // A reload mid-answer: the same conversation, the answer picked up again.
      // (the stream is read again from the run: 200, not 204 "nothing active")
      const resumed = page.waitForResponse((response) => response.url().endsWith(`/api/chat/${chatId}/stream`));
      await page.reload({ waitUntil: 'load' });
      expect(chatIdOf(page)).toBe(chatId);
      expect((await resumed).status()).toBe(200);
      await expect.poll(() => runPart(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('completed');
      await expect.poll(() => page.getByTestId('chat-session').getAttribute('data-chat-status')).toBe('ready');

      // One question, one answer; each text and each tool call once.
      const users = page.locator('[data-testid="chat-message"][data-role="user"]');
      expect(await users.allTextContents()).toEqual(['What changed?']);
      await expect.poll(() => assistant(page).count()).toBe(1);
      const answer = assistant(page).first();
      expect(await answer.getByTestId('chat-text').allTextContents()).toEqual(expectedTexts);
      const toolIds = await answer
        .getByTestId('chat-tool')
        .evaluateAll((cards) => cards.map((card) => card.getAttribute('data-tool-call-id')));
      expect(toolIds).toHaveLength(expectedTools);
      expect(new Set(toolIds).size).toBe(toolIds.length);
      const states = await answer
        .getByTestId('chat-tool')
        .evaluateAll((cards) => cards.map((card) => card.getAttribute('data-state')));
      expect(new Set(states)).toEqual(new Set(['output-available']));
      expect(await answer.getAttribute('data-run-id')).toBe(runId);
      const after = await api<{ run: { status: string } }>('runs.get', { runId });
      expect(after.run.status).toBe('completed');

      // The conversation as stored says the same, and is listed under its flow.
      const stored = (await (await fetch(`${editor!.app.api}/api/chat/${chatId}`)).json()) as {
        messages: { role: string; parts: { type: string; text?: string }[] }[];
        activeRunId: string | null;
      };
      expect(stored.activeRunId).toBeNull();
      expect(stored.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      const storedTexts = stored.messages[1]!.parts.filter((part) => part.type === 'text').map((part) => part.text);
      expect(storedTexts).toEqual(expectedTexts);
      const listed = page.locator(`[data-testid="chat-list-item"][data-chat-id="${chatId}"]`);
      await listed.waitFor();
      // Listed as idle once the answer has ended (no "answering" mark).
      await listed.locator('.chat-list-live').waitFor({ state: 'detached' });
      await page.screenshot({ path: join(SCREENSHOTS, 'chat.png') });
    });
  });

  it('asks for an approval in the chat and goes on once approved', async () => {
    await guarded('approval', async (page) => {
      await api('flows.create', { doc: APPROVAL_FLOW }, 'POST');
      await openChat(page, APPROVAL_FLOW.id);
      await page.evaluate(() => {
        (window as ChatWindow).__weftChatFixtures = undefined;
      });
      await send(page, 'Please confirm the refund');

      const approval = page.getByTestId('chat-approval');
      await expect.poll(() => approval.getAttribute('data-status'), { timeout: 20_000 }).toBe('pending');
      await expect.poll(() => approval.locator('.chat-approval-prompt').textContent()).toContain('Send this reply?');
      expect(await runPart(page).getAttribute('data-status')).toBe('running');
      const approve = approval.getByRole('button', { name: 'Approve' });
      await approve.click();

      await expect.poll(() => approval.getAttribute('data-status'), { timeout: 20_000 }).toBe('approved');
      await expect.poll(() => approval.getByTestId('chat-approval-status').textContent()).toBe('approved');
      // Decided: the buttons stay, disabled, and the decision is said.
      expect(await approve.isDisabled()).toBe(true);
      expect(await approval.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(true);
      expect(await approval.getByTestId('chat-approval-decision').textContent()).toMatch(/^Approved/);
      await expect.poll(() => runPart(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('completed');
      const texts = await assistant(page).last().getByTestId('chat-text').allTextContents();
      expect(texts.join('')).toContain('Approved by a person');
      expect(await assistant(page).count()).toBe(1);
      await page.screenshot({ path: join(SCREENSHOTS, 'chat-approval.png') });
    });
  });

  it('stops a run waiting for an approval', async () => {
    await guarded('stop', async (page) => {
      await openChat(page, APPROVAL_FLOW.id);
      await send(page, 'Refund order 42');
      const approval = page.getByTestId('chat-approval');
      await expect.poll(() => approval.getAttribute('data-status'), { timeout: 20_000 }).toBe('pending');
      await page.getByRole('button', { name: 'Stop the run' }).click();

      await expect.poll(() => runPart(page).getAttribute('data-status'), { timeout: 20_000 }).toBe('cancelled');
      const runId = (await runPart(page).getAttribute('data-run-id')) ?? '';
      expect((await api<{ run: { status: string } }>('runs.get', { runId })).run.status).toBe('cancelled');
      // Nothing left to answer; the composer is back.
      expect(await approval.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Send message' }).waitFor();
    });
  });
});
