/**
 * A recorded model turn replayed instead of calling a provider, so any run can be re-run
 * offline, exactly. The output has the same shape a live turn has, including the assistant
 * message the SDK would have produced for it.
 */
import {
  type FixtureTurn,
  type Json,
  type ModelMessage,
  type ModelTurnInput,
  type ModelTurnOutput,
  NonRetryableError,
  toJson,
} from '@weft/engine';
import { abortableDelay } from '../backends/timing.ts';
import type { ExecutorContext } from './types.ts';

/** Longest a fixture may spread its text over. */
export const MAX_STREAM_MS = 60_000;

export async function fixtureTurn(input: ModelTurnInput, ctx: ExecutorContext): Promise<ModelTurnOutput> {
  const fixture = input.fixture as FixtureTurn;
  const where = `fixture for step "${input.stepId}" turn ${input.turn}`;
  const output = turnFromFixture(fixture, { where, turn: input.turn, schema: input.schema });
  const { streamMs } = fixture;
  if (streamMs !== undefined && (typeof streamMs !== 'number' || !(streamMs >= 0 && streamMs <= MAX_STREAM_MS))) {
    throw new NonRetryableError(`${where}: streamMs must be a number of milliseconds from 0 to ${MAX_STREAM_MS}`);
  }
  if (output.text === '') return output;
  if (!streamMs) {
    ctx.emitDelta(output.text);
    return output;
  }
  // Word by word (each with the spaces before it): the first at once, the last after streamMs.
  const words = output.text.match(/\s*\S+/g) ?? [output.text];
  const pause = streamMs / Math.max(words.length - 1, 1);
  for (const [index, word] of words.entries()) {
    // Below a millisecond a timer would wait a whole one: as fast as possible, word by word.
    if (index > 0 && pause >= 1) await abortableDelay(pause, ctx.signal);
    ctx.emitDelta(word);
  }
  const rest = output.text.slice(words.join('').length);
  if (rest !== '') ctx.emitDelta(rest);
  return output;
}

/**
 * A recorded turn (`{ text?, toolCalls?: [{ tool, args }], object?, usage? }`) as the output a
 * live turn has; also what a replay's pinned model turn becomes. `where` names it in errors.
 */
export function turnFromFixture(
  fixture: FixtureTurn,
  { where, turn, schema }: { where: string; turn: number; schema?: ModelTurnInput['schema'] },
): ModelTurnOutput {
  // Fixtures and pins from outside are checked up front (turn-shape.ts); this guards the rest.
  if (typeof fixture !== 'object' || fixture === null || Array.isArray(fixture)) {
    throw new NonRetryableError(`${where}: expected a turn object { text?, toolCalls?, object? }`);
  }
  if (fixture.text !== undefined && typeof fixture.text !== 'string') {
    throw new NonRetryableError(`${where}: text must be a string`);
  }
  if (fixture.toolCalls !== undefined && !Array.isArray(fixture.toolCalls)) {
    throw new NonRetryableError(`${where}: toolCalls must be an array`);
  }
  const toolCalls = (fixture.toolCalls ?? []).map((call, index) => {
    if (typeof call?.tool !== 'string' || call.tool === '') {
      throw new NonRetryableError(`${where}: toolCalls[${index}].tool must be a tool name`);
    }
    return { id: `call_${turn}_${index}`, tool: call.tool, args: toJson(call.args ?? {}) };
  });

  let object: Json | undefined = fixture.object === undefined ? undefined : toJson(fixture.object);
  // A live structured-output turn carries the object as JSON text, and its text parses to the
  // object; keep the two in step whichever one the fixture gives.
  const text = fixture.text ?? (object === undefined ? '' : JSON.stringify(object));
  if (object === undefined && schema && text.trim() !== '') {
    try {
      object = JSON.parse(text) as Json;
    } catch {
      throw new NonRetryableError(`${where}: the step has a schema but the text is not JSON and no object is given`);
    }
  }

  // The same shape the SDK gives: empty text is left out, and no content means no message.
  const content: Json[] = [];
  if (text !== '') content.push({ type: 'text', text });
  for (const call of toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.tool, input: call.args });
  }
  const responseMessages: ModelMessage[] = content.length > 0 ? [{ role: 'assistant', content }] : [];

  const usage = fixture.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const output: ModelTurnOutput = {
    text,
    toolCalls,
    responseMessages,
    usage: {
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      totalTokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
    },
    finishReason: toolCalls.length > 0 ? 'tool-calls' : 'stop',
  };
  if (object !== undefined) output.object = object;
  return output;
}
