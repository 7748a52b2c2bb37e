/**
 * The shapes a recorded model turn may be given in from outside — a run's fixtures, a replay's
 * pinned model turn — checked before anything is recorded or run, so a malformed one is refused
 * with the field named (`pins['agent/llm#1'].toolCalls: expected an array of { tool, args }`)
 * instead of failing a run later with a TypeError from deep in the agent loop.
 *
 * A fixture turn is `{ text?, toolCalls?: [{ tool, args }], object?, usage?, streamMs? }`
 * (fixture-turn.ts builds the whole turn from it); a pin may also be a turn's text, or a whole
 * recorded turn (it has `responseMessages`), which is used as it is and so must have every field
 * the agent loop reads.
 */
import { type Fixtures, type FixtureTurn, isJsonObject, type Json } from '@weft/engine';
import { z } from 'zod';
import { MAX_STREAM_MS, turnFromFixture } from './fixture-turn.ts';

/** A fixture or pinned model turn that does not have the shape of one; the message starts with the field. */
export class TurnShapeError extends Error {
  /** Where, as a path: `pins['agent/llm#1'].toolCalls`, `fixtures['agent'][0].text`. */
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'TurnShapeError';
    this.field = field;
  }
}

const count = z.number({ error: 'expected a number of tokens' }).nonnegative('expected a number of tokens');
const TOOL_CALL = '{ tool, args }';

const fixtureToolCall = z.looseObject(
  {
    tool: z.string({ error: 'expected a tool name' }).min(1, 'expected a tool name'),
    args: z.json().optional(),
  },
  { error: `expected ${TOOL_CALL}` },
);

const fixtureTurnSchema = z.looseObject(
  {
    text: z.string({ error: 'expected a string' }).optional(),
    toolCalls: z.array(fixtureToolCall, { error: `expected an array of ${TOOL_CALL}` }).optional(),
    object: z.json().optional(),
    usage: z
      .looseObject(
        { inputTokens: count.optional(), outputTokens: count.optional(), totalTokens: count.optional() },
        { error: 'expected { inputTokens, outputTokens, totalTokens }' },
      )
      .optional(),
    streamMs: z
      .number({ error: `expected a number of milliseconds from 0 to ${MAX_STREAM_MS}` })
      .min(0, `expected a number of milliseconds from 0 to ${MAX_STREAM_MS}`)
      .max(MAX_STREAM_MS, `expected a number of milliseconds from 0 to ${MAX_STREAM_MS}`)
      .optional(),
    // Built from text and toolCalls, never given: a fixture that carries one would be ignored.
    responseMessages: z
      .never({
        error: 'is not part of a fixture turn (its assistant message is built from text and toolCalls)',
      })
      .optional(),
  },
  { error: `expected a turn object { text?, toolCalls?: [${TOOL_CALL}], object?, usage? }` },
);

const MESSAGE = "expected a message { role: 'assistant' | 'tool' | 'user' | 'system', content }";
const messageSchema = z.looseObject(
  {
    role: z.enum(['system', 'user', 'assistant', 'tool'], { error: MESSAGE }),
    content: z.union(
      [z.string(), z.array(z.looseObject({ type: z.string() }, { error: 'expected a part { type, … }' }))],
      { error: 'expected a string or an array of parts { type, … }' },
    ),
  },
  { error: MESSAGE },
);

/** A whole recorded turn, as a live one is journaled (ModelTurnOutput): what the agent loop reads of it. */
const recordedTurnSchema = z.looseObject({
  // First: what makes the value a whole turn is reported before what it lacks.
  responseMessages: z.array(messageSchema, { error: 'expected an array of messages { role, content }' }),
  text: z.string({ error: 'expected a string' }).optional(),
  toolCalls: z.array(
    z.looseObject(
      {
        id: z.string({ error: 'expected the call id' }),
        tool: z.string({ error: 'expected a tool name' }).min(1, 'expected a tool name'),
        args: z.json({ error: 'expected JSON' }),
      },
      { error: 'expected { id, tool, args }' },
    ),
    { error: 'expected an array of { id, tool, args } (a whole turn has every field of a recorded one)' },
  ),
  usage: z.looseObject(
    { inputTokens: count, outputTokens: count, totalTokens: count },
    { error: 'expected { inputTokens, outputTokens, totalTokens } (a whole turn has every field of a recorded one)' },
  ),
  finishReason: z.string({ error: 'expected a string' }).optional(),
  object: z.json().optional(),
});

/** `'agent/llm#1'` as it is written in a field path. */
export function quotedKey(key: string): string {
  return `['${key.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}']`;
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  throw new TurnShapeError(`${field}${path}`, issue.message);
}

/**
 * Refuses fixtures that are not `{ "<llm step path>": [turn, …] }` with turns a fixture may
 * hold; `field` is what the caller calls them.
 */
export function checkFixtures(fixtures: unknown, field = 'fixtures'): asserts fixtures is Fixtures {
  if (!isJsonObject(fixtures as Json))
    throw new TurnShapeError(field, 'expected an object: { "<llm step path>": [turn, …] }');
  for (const [key, turns] of Object.entries(fixtures as Record<string, unknown>)) {
    const where = `${field}${quotedKey(key)}`;
    if (!Array.isArray(turns)) throw new TurnShapeError(where, 'expected an array of turns, one per model call');
    turns.forEach((turn, index) => {
      parsed(fixtureTurnSchema, turn, `${where}[${index}]`);
    });
  }
}

/**
 * A value pinned to a model turn as the turn's result: its text, a fixture turn (made whole the
 * way a recorded one is) or a whole recorded turn (with its `responseMessages`, kept as it is).
 * `field` names the pin in errors; `turn` is the turn's number (its tool call ids).
 */
export function pinnedTurn(value: Json, { field, turn }: { field: string; turn: number }): Json {
  if (typeof value === 'string') return turnFromFixture({ text: value }, { where: field, turn }) as unknown as Json;
  if (isJsonObject(value) && Object.hasOwn(value, 'responseMessages')) {
    parsed(recordedTurnSchema, value, field);
    return value;
  }
  if (!isJsonObject(value))
    throw new TurnShapeError(
      field,
      `expected a model turn: its text, { text?, toolCalls?: [${TOOL_CALL}], object? }, or a whole recorded turn`,
    );
  const fixture = parsed(fixtureTurnSchema, value, field) as FixtureTurn;
  return turnFromFixture(fixture, { where: field, turn }) as unknown as Json;
}
