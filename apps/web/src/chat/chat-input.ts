/**
 * The run input a chat sends besides the conversation: the flow's input properties other than
 * `messages` (the conversation itself) and the one the server fills from the last user message
 * (`chat.messageInput`), typed into text fields. Only fields with a value are sent.
 */

export interface ChatInputField {
  name: string;
  /** The JSON Schema type, when it names one ('string', 'number', 'object', ...). */
  type: string | null;
  required: boolean;
  description?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The input property the flow says receives the last user message (`chat.messageInput`). */
export function messageInputOf(flow: unknown): string | null {
  return isObject(flow) && isObject(flow.chat) && typeof flow.chat.messageInput === 'string'
    ? flow.chat.messageInput
    : null;
}

/** The fields the "Input" disclosure shows for `flow` (a flow document). */
export function chatInputFields(flow: unknown): ChatInputField[] {
  if (!isObject(flow) || !isObject(flow.input) || !isObject(flow.input.properties)) return [];
  const schema = flow.input;
  const messageInput = messageInputOf(flow);
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
  const fields: ChatInputField[] = [];
  for (const [name, property] of Object.entries(schema.properties as Record<string, unknown>)) {
    if (name === 'messages' || name === messageInput) continue;
    const type = isObject(property) && typeof property.type === 'string' ? property.type : null;
    const field: ChatInputField = { name, type, required: required.has(name) };
    if (isObject(property) && typeof property.description === 'string') field.description = property.description;
    fields.push(field);
  }
  return fields;
}

/**
 * The field the server fills from the last user message when the flow names none: the one
 * required string property left empty, if exactly one is (the API's chat-sessions.ts rule).
 */
export function implicitMessageField(
  fields: ChatInputField[],
  texts: Record<string, string>,
  messageInput: string | null,
): string | null {
  if (messageInput !== null) return null;
  const open = fields.filter((field) => field.required && field.type === 'string' && !texts[field.name]);
  return open.length === 1 ? (open[0]?.name ?? null) : null;
}

/**
 * The typed text as the value the schema wants: numbers and booleans parsed, objects and arrays
 * read as JSON; text that does not parse is sent as it is (the server's schema check says why).
 */
export function parseFieldValue(field: ChatInputField, text: string): unknown {
  switch (field.type) {
    case 'number':
    case 'integer': {
      const number = Number(text);
      return text.trim() !== '' && Number.isFinite(number) ? number : text;
    }
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'object':
    case 'array':
    case 'null':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    default:
      return text;
  }
}

/** The `input` to send: each field with a value, parsed. */
export function chatInputValue(fields: ChatInputField[], texts: Record<string, string>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const text = texts[field.name];
    if (text === undefined || text === '') continue;
    input[field.name] = parseFieldValue(field, text);
  }
  return input;
}
