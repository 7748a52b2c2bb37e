/**
 * Chats over runs: a user message starts a run of the flow with the conversation as its input,
 * the chat remembers that run as its active one, and the answer streams from the run's stored
 * events (chat-stream.ts) — so any number of readers, a reload, a dropped connection or a
 * restart of the server all read the same stream. Once the run has ended, its answer is settled
 * into the chat's messages (built from the same chunks the stream sent), exactly once.
 *
 * The input convention: `input.messages` holds the conversation as the `ai` SDK's model
 * messages (so an `llm` step with `"messages": "=input.messages"` continues it); the flow's
 * `chat.messageInput` (else the one required string property the request did not give) also
 * receives the last user message's text; the request's `input` adds the rest.
 *
 * Every chat has an owner (the credential that created it, see auth.ts `credentialOwner`): only
 * it reads, continues, stops or answers approvals in that chat; to anyone else the chat does not
 * exist. Chats from before owners are given to `adoptAs` (the server's primary credential)
 * before the first request is served.
 */
import { randomUUID } from 'node:crypto';
import type { BackendName } from '@weft/adapters/backends';
import { newRunId } from '@weft/adapters/service';
import { type ChatRecord, type ChatSummary, followRun } from '@weft/adapters/store';
import { type Fixtures, type Flow, flowSchema, isFinalStatus, isJsonObject, type Json, toJson } from '@weft/engine';
import { convertToModelMessages, readUIMessageStream, safeValidateUIMessages } from 'ai';
import type { ApiServices } from '../services.ts';
import {
  type ChatChunk,
  type ChatMessage,
  ChatStreamTranslator,
  chatTextSteps,
  chunksOf,
  streamOf,
} from './chat-stream.ts';

export class ChatRequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ChatRequestError';
    this.status = status;
  }
}

export interface ChatTurnRequest {
  /** The credential sending the turn (`credentialOwner`). */
  owner: string;
  chatId: string;
  messages: unknown[];
  input?: Record<string, Json>;
  fixtures?: Fixtures;
  backend?: BackendName;
}

const TITLE_CHARS = 80;

export class ChatSessions {
  readonly #services: ApiServices;
  readonly #adoptAs: string;
  #adopted: Promise<void> | undefined;

  constructor(services: ApiServices, options: { adoptAs: string }) {
    this.#services = services;
    this.#adoptAs = options.adoptAs;
  }

  get #store() {
    return this.#services.store;
  }

  /** Gives chats from before owners to the primary credential, once (again after a failure). */
  #ready(): Promise<void> {
    this.#adopted ??= this.#store.chats.adoptUnowned(this.#adoptAs).then(
      () => undefined,
      (error: unknown) => {
        this.#adopted = undefined;
        throw error;
      },
    );
    return this.#adopted;
  }

  /** The chat when `owner` may see it; another owner's chat is as unknown as a missing one. */
  async #own(chatId: string, owner: string): Promise<ChatRecord | undefined> {
    await this.#ready();
    const chat = await this.#store.chats.get(chatId);
    return chat?.owner === owner ? chat : undefined;
  }

  /** Records the conversation and starts the run answering it; returns the run id. */
  async send(flowId: string, request: ChatTurnRequest): Promise<{ runId: string; textSteps: Set<string> }> {
    const record = await this.#store.flows.get(flowId);
    if (!record) throw new ChatRequestError(404, `flowId: unknown flow '${flowId}'`);
    const flow = flowSchema.parse(record.doc) as Flow;
    const validated = await safeValidateUIMessages<ChatMessage>({ messages: request.messages });
    if (!validated.success) throw new ChatRequestError(400, `messages: ${validated.error.message}`);
    const messages = validated.data;
    if (messages.at(-1)?.role !== 'user')
      throw new ChatRequestError(400, 'messages: the last message must be the user’s');

    await this.#ready();
    let chat = await this.#store.chats.get(request.chatId);
    if (chat && chat.owner !== request.owner) throw takenBy(request.chatId);
    if (chat && chat.flowId !== flowId)
      throw new ChatRequestError(409, `id: chat '${request.chatId}' belongs to flow '${chat.flowId}'`);
    if (chat?.activeRunId) {
      chat = await this.settle(chat);
      if (chat.activeRunId)
        throw new ChatRequestError(
          409,
          `chat '${chat.id}' is still answering (run ${chat.activeRunId}): stop it first (POST /api/chat/${chat.id}/stop)`,
        );
    }

    const input = await runInput(flow, messages, request.input ?? {});
    const runId = newRunId();
    const title = chat?.title ?? titleOf(messages);
    // The chat names its run before the run exists: a crash in between leaves a chat whose
    // active run is unknown, which settling clears, never a run nobody's chat points at.
    const written = await this.#store.chats.put(
      {
        id: request.chatId,
        flowId,
        title,
        messages: messages as unknown as Json[],
        activeRunId: runId,
        owner: request.owner,
      },
      Date.now(),
    );
    // Another credential created this id between the read above and now.
    if (!written) throw takenBy(request.chatId);
    await this.#services.runs.start({
      flow: record.doc,
      input,
      runId,
      ...(request.fixtures ? { fixtures: request.fixtures } : {}),
      ...(request.backend ? { backend: request.backend } : {}),
    });
    return { runId, textSteps: chatTextSteps(flow) };
  }

  /** The chat with the answer of an ended active run settled into its messages. */
  async load(chatId: string, owner: string): Promise<ChatRecord> {
    const chat = await this.#own(chatId, owner);
    if (!chat) throw new ChatRequestError(404, `unknown chat '${chatId}'`);
    return this.settle(chat);
  }

  /** The owner's chats (of the flow; newest first), each with an ended active run's answer settled. */
  async list(owner: string, flowId: string | undefined): Promise<ChatSummary[]> {
    await this.#ready();
    const chats = await this.#store.chats.list(flowId ? { flowId, owner } : { owner });
    return Promise.all(
      chats.map(async (summary) => {
        if (!summary.activeRunId) return summary;
        const chat = await this.#store.chats.get(summary.id);
        if (!chat) return summary;
        const { messages: _messages, owner: _owner, ...settled } = await this.settle(chat);
        return settled;
      }),
    );
  }

  /** What the chat's active run streams, or undefined when none is active. */
  async active(chatId: string, owner: string): Promise<{ runId: string; textSteps: Set<string> } | undefined> {
    const chat = await this.#own(chatId, owner);
    if (!chat?.activeRunId) return undefined;
    const run = await this.#store.getRun(chat.activeRunId);
    if (!run) return undefined;
    return { runId: run.id, textSteps: chatTextSteps(flowSchema.parse(run.flow) as Flow) };
  }

  /**
   * The run's answer as UI message chunks from position `from` on: what is stored, then what is
   * committed, until the run ends or `signal` aborts (a disconnect, which stops nothing else).
   */
  async *chunks(runId: string, textSteps: ReadonlySet<string>, from: number, signal: AbortSignal) {
    const translator = new ChatStreamTranslator(runId, textSteps);
    let position = 0;
    for await (const batch of followRun(this.#store, runId, 0, { signal })) {
      for (const event of batch)
        for (const chunk of translator.push(event)) {
          if (position++ >= from) yield chunk;
        }
      if (translator.finished) return;
    }
  }

  /** Cancels the chat's active run (a closed connection never does). */
  async stop(chatId: string, owner: string): Promise<{ runId: string | null }> {
    const chat = await this.load(chatId, owner);
    if (!chat.activeRunId) return { runId: null };
    await this.#services.runs.cancel(chat.activeRunId);
    return { runId: chat.activeRunId };
  }

  async decide(
    chatId: string,
    owner: string,
    decision: { runId: string; stepId: string; approved: boolean; comment?: string | null },
    by: string | null,
  ): Promise<{ status: string }> {
    const chat = await this.#own(chatId, owner);
    if (!chat) throw new ChatRequestError(404, `unknown chat '${chatId}'`);
    if (chat.activeRunId !== decision.runId)
      throw new ChatRequestError(409, `runId: run ${decision.runId} is not the run answering chat '${chatId}'`);
    const approval = await this.#services.runs.decide(decision.runId, decision.stepId, {
      approved: decision.approved,
      by,
      comment: decision.comment ?? null,
    });
    return { status: approval.status };
  }

  /** Puts an ended active run's answer into the chat's messages (once, whoever gets there first). */
  async settle(chat: ChatRecord): Promise<ChatRecord> {
    const runId = chat.activeRunId;
    if (!runId) return chat;
    const run = await this.#store.getRun(runId);
    if (run && !isFinalStatus(run.status)) return chat;
    const answer = run
      ? await messageOf(
          chunksOf(runId, chatTextSteps(flowSchema.parse(run.flow) as Flow), await this.#store.readEvents(runId)),
        )
      : undefined;
    const messages = answer ? [...chat.messages, answer as unknown as Json] : chat.messages;
    await this.#store.chats.settle(chat.id, runId, messages, Date.now());
    return (await this.#store.chats.get(chat.id)) ?? chat;
  }

  static newChatId(): string {
    return `chat_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  }
}

/** Another credential's chat: a POST reveals that the id is taken whatever it answers, so it says so. */
function takenBy(chatId: string): ChatRequestError {
  return new ChatRequestError(
    403,
    `id: chat '${chatId}' belongs to another credential (a chat is private to the token that started it): start a new chat with a new id`,
  );
}

/** The UI message a client builds from these chunks (the AI SDK's own reader). */
export async function messageOf(chunks: readonly ChatChunk[]): Promise<ChatMessage | undefined> {
  let last: ChatMessage | undefined;
  const stream = streamOf(chunks);
  for await (const message of readUIMessageStream<ChatMessage>({ stream, onError: () => {} })) last = message;
  return last;
}

async function runInput(flow: Flow, messages: ChatMessage[], extra: Record<string, Json>): Promise<Json> {
  const schema = isJsonObject(flow.input) ? flow.input : {};
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const input: Record<string, Json> = { ...extra };
  if (schema.additionalProperties !== false || Object.hasOwn(properties, 'messages')) {
    const model = await convertToModelMessages(
      messages.map(({ id: _id, ...message }) => message),
      { ignoreIncompleteToolCalls: true },
    );
    input.messages = toJson(model);
  }
  const target = flow.chat?.messageInput ?? promptProperty(schema, properties, extra);
  if (target !== undefined) input[target] = lastUserText(messages);
  return input;
}

/** The one required string property (besides `messages`) the request did not give, if exactly one. */
function promptProperty(
  schema: Record<string, Json>,
  properties: Record<string, Json>,
  given: Record<string, Json>,
): string | undefined {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const open = required.filter(
    (name): name is string =>
      typeof name === 'string' &&
      name !== 'messages' &&
      !Object.hasOwn(given, name) &&
      isJsonObject(properties[name]) &&
      (properties[name] as Record<string, Json>).type === 'string',
  );
  return open.length === 1 ? open[0] : undefined;
}

function lastUserText(messages: ChatMessage[]): string {
  const last = messages.findLast((message) => message.role === 'user');
  return (last?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}

function titleOf(messages: ChatMessage[]): string {
  const text = lastUserText(messages).replace(/\s+/g, ' ');
  if (text === '') return 'New chat';
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
}
