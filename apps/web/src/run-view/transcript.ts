/**
 * An agent loop's conversation as a chat transcript, from the run's state at the scrubbed
 * moment: the system prompt and the messages the llm step started with, then per model turn
 * the assistant's text (streamed so far, while it runs) and the tool calls it asked for, and per
 * tool call its arguments and its result or error. Every turn and call names its run step, so
 * the transcript links to the timeline.
 *
 * `messagesSentTo` rebuilds what one turn sent the model the way the llm step builds it (the
 * starting messages, then each earlier turn's response and its tool results), since a turn's
 * `step.started` carries no input of its own.
 */
import { isJsonObject, type Json, type RunState, type StepState, type StepStatus, stepOf } from '@weft/engine';

export type TranscriptEntry =
  | { kind: 'system'; id: 'system'; text: string }
  | { kind: 'message'; id: string; role: string; text: string; message: Json }
  | {
      kind: 'turn';
      stepId: string;
      turn: number;
      status: StepStatus;
      text: string;
      /** Still streaming at this moment. */
      streaming: boolean;
      calls: { id: string; tool: string; args: Json }[];
      error: string | null;
      attempts: number;
    }
  | { kind: 'tool'; stepId: string; tool: string; args: Json; status: StepStatus; result: Json; error: string | null };

interface LlmInput {
  system?: string;
  messages: Json[];
}

/** The model turns and tool calls of an llm step, in the order they started. */
function childrenOf(state: RunState, stepId: string): StepState[] {
  const out: StepState[] = [];
  for (const id of state.order) {
    const step = stepOf(state, id);
    if (step?.parentId === stepId && (step.stepType === 'model-turn' || step.stepType === 'tool-call')) out.push(step);
  }
  return out;
}

function inputOf(step: StepState): LlmInput {
  const input = isJsonObject(step.input) ? step.input : {};
  const messages = Array.isArray(input.messages) ? input.messages : [];
  return typeof input.system === 'string' ? { system: input.system, messages } : { messages };
}

export function transcriptOf(state: RunState, stepId: string): TranscriptEntry[] {
  const step = stepOf(state, stepId);
  if (!step) return [];
  const input = inputOf(step);
  const entries: TranscriptEntry[] = [];
  if (input.system) entries.push({ kind: 'system', id: 'system', text: input.system });
  input.messages.forEach((message, index) => {
    const role = isJsonObject(message) && typeof message.role === 'string' ? message.role : 'message';
    const text = textOf(isJsonObject(message) ? message.content : message);
    entries.push({ kind: 'message', id: `message-${index}`, role, text, message });
  });
  for (const child of childrenOf(state, stepId)) {
    if (child.stepType === 'model-turn') {
      const output = isJsonObject(child.output) ? child.output : null;
      const calls = Array.isArray(output?.toolCalls) ? output.toolCalls.filter(isJsonObject) : [];
      entries.push({
        kind: 'turn',
        stepId: child.stepId,
        turn: turnNumber(child.stepId),
        status: child.status,
        text: typeof output?.text === 'string' ? output.text : child.text,
        streaming: output === null && child.status === 'running',
        calls: calls.map((call) => ({
          id: typeof call.id === 'string' ? call.id : '',
          tool: typeof call.tool === 'string' ? call.tool : '?',
          args: call.args ?? null,
        })),
        error: child.error?.message ?? null,
        attempts: child.attempts,
      });
    } else {
      const call = isJsonObject(child.input) ? child.input : {};
      entries.push({
        kind: 'tool',
        stepId: child.stepId,
        tool: typeof call.tool === 'string' ? call.tool : '?',
        args: call.args ?? null,
        status: child.status,
        result: child.output,
        error: child.error?.message ?? null,
      });
    }
  }
  return entries;
}

/** The messages model turn `turnStepId` (`agent/llm#3`) sent, rebuilt; null when it is not a turn of a known step. */
export function messagesSentTo(state: RunState, turnStepId: string): { system?: string; messages: Json[] } | null {
  const turn = stepOf(state, turnStepId);
  if (!turn || turn.parentId === null) return null;
  const parent = stepOf(state, turn.parentId);
  if (!parent) return null;
  const input = inputOf(parent);
  const messages: Json[] = [...input.messages];
  const wanted = turnNumber(turnStepId);
  const children = childrenOf(state, parent.stepId);
  for (const child of children) {
    if (child.stepType !== 'model-turn' || turnNumber(child.stepId) >= wanted) continue;
    const output = isJsonObject(child.output) ? child.output : {};
    if (Array.isArray(output.responseMessages)) messages.push(...output.responseMessages);
    const calls = Array.isArray(output.toolCalls) ? output.toolCalls.filter(isJsonObject) : [];
    if (calls.length === 0) continue;
    const turn = turnNumber(child.stepId);
    const results = calls.map((call, index) => {
      const tool = stepOf(state, `${parent.stepId}/tool#${turn}.${index}`);
      const base = { type: 'tool-result', toolCallId: call.id ?? null, toolName: call.tool ?? null };
      return tool?.error
        ? { ...base, output: { type: 'error-text', value: tool.error.message } }
        : { ...base, output: { type: 'json', value: tool?.output ?? null } };
    });
    messages.push({ role: 'tool', content: results });
  }
  return input.system === undefined ? { messages } : { system: input.system, messages };
}

function turnNumber(stepId: string): number {
  const match = /#(\d+)(?:\.\d+)?$/.exec(stepId);
  return match ? Number(match[1]) : 0;
}

/** A message's text: a string, or its text parts joined (tool calls and results are shown apart). */
export function textOf(content: Json | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  return content
    .map((part) => {
      if (!isJsonObject(part)) return '';
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      if (part.type === 'tool-call') return `→ ${String(part.toolName)}(${JSON.stringify(part.input ?? null)})`;
      if (part.type === 'tool-result') return `← ${String(part.toolName)}: ${JSON.stringify(part.output ?? null)}`;
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}
