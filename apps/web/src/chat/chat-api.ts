/**
 * The chat endpoints of the API (`/api/chat/...`, plain HTTP beside tRPC: the AI SDK's
 * `useChat` speaks it) and the message shapes they send. Every call carries the same bearer
 * token as the tRPC client.
 *
 * - `POST /api/chat/<flowId>`: a user message in, a UI message stream out (the transport's).
 * - `GET /api/chat/<chatId>/stream`: the active run's stream from its start (204: none).
 * - `POST /api/chat/<chatId>/stop`: cancel the active run.
 * - `POST /api/chat/<chatId>/approval`: answer an approval step.
 * - `GET /api/chat/<chatId>`: the conversation (without the active run's partial answer).
 * - `GET /api/chat?flowId=`: a flow's conversations, newest first, and what this server lets a
 *   chat client set besides the conversation (`clientOverrides`).
 */
import { DefaultChatTransport, type UIMessage } from 'ai';
import { authHeaders } from '../trpc.ts';

const BASE = '/api/chat';

/** `data-step`: one step of the run, updated in place (part id = step id). */
export interface StepData {
  stepId: string;
  stepType: string;
  status: 'running' | 'completed' | 'failed' | 'waiting';
  summary?: string;
}

/** `data-approval` (part id `approval:<stepId>`). */
export interface ApprovalData {
  runId: string;
  stepId: string;
  prompt: string;
  status: 'pending' | 'approved' | 'rejected' | 'timed-out';
  by?: string | null;
  comment?: string | null;
}

/** `data-run` (part id `run`): the run behind an answer (`backend` null until it has started). */
export interface RunData {
  runId: string;
  status: string;
  backend: string | null;
  handoff?: { from: string; to: string; checkpoint: string } | null;
}

export type ChatDataTypes = { step: StepData; approval: ApprovalData; run: RunData };
/** Start and finish carry the run in the message metadata (finish: with how it ended). */
export interface ChatMetadata {
  runId?: string;
  status?: 'completed' | 'failed' | 'cancelled';
}

export type ChatMessage = UIMessage<ChatMetadata | undefined, ChatDataTypes>;
export type ChatPart = ChatMessage['parts'][number];

export interface ChatRecord {
  id: string;
  flowId: string;
  title: string;
  messages: ChatMessage[];
  activeRunId: string | null;
}

export interface ChatSummary {
  id: string;
  flowId: string;
  title: string;
  updatedAt: number;
  activeRunId: string | null;
}

declare global {
  interface Window {
    /**
     * Testing hook (the e2e specs set it): recorded model turns sent as `fixtures` with every
     * message, so a conversation runs offline and exactly as recorded. Not a user feature.
     */
    __weftChatFixtures?: unknown;
  }
}

async function failure(response: Response, what: string): Promise<Error> {
  let detail = '';
  try {
    // The API answers `{ error: { message, status } }`.
    const body = (await response.json()) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'object' ? body.error?.message : (body.error ?? body.message);
    if (typeof message === 'string') detail = `: ${message}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return new Error(`${what} failed (HTTP ${response.status})${detail}`);
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { ...authHeaders() };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${BASE}${path}`, { ...init, headers });
}

/** The conversation, or null when the server does not know it (a new chat). */
export async function getChat(chatId: string): Promise<ChatRecord | null> {
  const response = await call(`/${encodeURIComponent(chatId)}`);
  if (response.status === 404) return null;
  if (!response.ok) throw await failure(response, 'Loading the conversation');
  return (await response.json()) as ChatRecord;
}

export async function listChats(flowId: string): Promise<ChatSummary[]> {
  const response = await call(`?flowId=${encodeURIComponent(flowId)}`);
  if (!response.ok) throw await failure(response, 'Listing conversations');
  return ((await response.json()) as { chats: ChatSummary[] }).chats;
}

/** What a chat client may set besides the conversation, where the operator allows it (the API's chat-overrides.ts). */
export type ChatClientOverride = 'fixtures' | 'backend' | 'input';

/** What this server lets a chat client set; null from a server that does not say. */
export async function chatClientOverrides(flowId: string): Promise<ChatClientOverride[] | null> {
  const response = await call(`?flowId=${encodeURIComponent(flowId)}`);
  if (!response.ok) throw await failure(response, 'Reading what the chat may send');
  return ((await response.json()) as { clientOverrides?: ChatClientOverride[] }).clientOverrides ?? null;
}

/**
 * What a message's POST carries besides the conversation: the run input typed on the page, when
 * there is any and the server takes it (`allowed` null: not known yet, sent; a refusal says why),
 * and the testing hook's fixtures (set on purpose, so sent as they are: a 403 tells the test).
 */
export function turnExtras(
  input: Record<string, unknown>,
  allowed: readonly ChatClientOverride[] | null,
  fixtures: unknown,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (Object.keys(input).length > 0 && (allowed === null || allowed.includes('input'))) body.input = input;
  if (fixtures !== undefined) body.fixtures = fixtures;
  return body;
}

export async function stopChat(chatId: string): Promise<void> {
  const response = await call(`/${encodeURIComponent(chatId)}/stop`, { method: 'POST' });
  if (!response.ok) throw await failure(response, 'Stopping the run');
}

export async function answerApproval(
  chatId: string,
  answer: { runId: string; stepId: string; approved: boolean; comment?: string },
): Promise<string> {
  const response = await call(`/${encodeURIComponent(chatId)}/approval`, {
    method: 'POST',
    body: JSON.stringify(answer),
  });
  if (!response.ok) throw await failure(response, 'Answering the approval');
  return ((await response.json()) as { status: string }).status;
}

/**
 * The transport `useChat` uses: messages to `POST /api/chat/<flowId>` with the extra run input
 * (`extraInput()`, read at send time, sent only where `allowedOverrides()` lets it) and the
 * testing hook's fixtures; a reload resumes from `GET /api/chat/<chatId>/stream`.
 */
export function chatTransport(
  flowId: string,
  extraInput: () => Record<string, unknown>,
  allowedOverrides: () => readonly ChatClientOverride[] | null,
) {
  return new DefaultChatTransport<ChatMessage>({
    api: `${BASE}/${encodeURIComponent(flowId)}`,
    headers: () => authHeaders(),
    body: () => turnExtras(extraInput(), allowedOverrides(), window.__weftChatFixtures),
    prepareReconnectToStreamRequest: ({ id }) => ({ api: `${BASE}/${encodeURIComponent(id)}/stream` }),
  });
}
