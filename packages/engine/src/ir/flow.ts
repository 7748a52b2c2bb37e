/** The flow document (IR v1): the contract between editor, engine, adapters and export. */
import { z } from 'zod';
import { FORBIDDEN_PROPERTIES } from '../expr/limits.ts';
import { idempotencyKeySchema } from '../steps/http.ts';
import { stepSchema } from '../steps/registry.ts';
import { flowIdSchema, jsonSchemaSchema, templateSchema, valueSchema } from './common.ts';

export const IR_VERSION = 1;

const toolNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'tool names are identifiers (letters, digits, _ and -)')
  .refine((name) => !FORBIDDEN_PROPERTIES.has(name), 'tool names cannot be names reserved by JavaScript');

export const flowToolSchema = z.strictObject({
  description: z.string().min(1),
  /** JSON Schema of the arguments the model must supply. */
  parameters: jsonSchemaSchema,
  /** Sandboxed JavaScript: a function body receiving `args`. */
  source: z.string().min(1).optional(),
  /** A sub-flow called as a tool with `args` as its input: "flow-id" or "flow-id@3". */
  flow: z.string().optional(),
  /** An HTTP request; its templates may read `args`. */
  http: z
    .strictObject({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).optional(),
      url: templateSchema,
      headers: z.record(z.string(), templateSchema).optional(),
      body: valueSchema.optional(),
      /** false: no `Idempotency-Key` header (as on the `http` step). */
      idempotencyKey: idempotencyKeySchema.optional(),
    })
    .optional(),
});
export type FlowTool = z.infer<typeof flowToolSchema>;

/** The engines a run can be handed off to (the in-process runner hands off; it is never a target). */
export const HANDOFF_TARGETS = ['temporal', 'inngest'] as const;
/** The hand-off point that means "the first tool call" (an agent's, or a `tool` step's). */
export const FIRST_TOOL_CALL = 'first-tool-call';

/**
 * A run that starts on the in-process runner (first tokens in milliseconds) and, at `at`,
 * continues on a durable engine with its journal so far (DESIGN.md, hand-off): `at` is
 * "first-tool-call" or a step id, the first checkpointed call at or inside that step.
 */
export const handoffSchema = z.strictObject({
  to: z.enum(HANDOFF_TARGETS),
  at: z.string().min(1),
});
export type Handoff = z.infer<typeof handoffSchema>;

/** How the flow serves a chat (`POST /api/chat/<flowId>`); see the API's chat module. */
export const chatSettingsSchema = z.strictObject({
  /** `llm` steps whose text streams to the chat as text parts (default: the last one). */
  textSteps: z.array(z.string().min(1)).optional(),
  /** An input property that receives the last user message's text (besides `input.messages`). */
  messageInput: z.string().min(1).optional(),
});
export type ChatSettings = z.infer<typeof chatSettingsSchema>;

export const flowSchema = z.strictObject({
  irVersion: z.literal(IR_VERSION),
  id: flowIdSchema,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  /** Bumped on every save; runs pin the version they started on. */
  version: z.int().min(1).optional(),
  /** JSON Schema of the run input. */
  input: jsonSchemaSchema.optional(),
  steps: z.array(stepSchema).min(1, 'a flow needs at least one step'),
  /** Expr or object of Exprs; default: the last step's output. */
  output: valueSchema.optional(),
  tools: z.record(toolNameSchema, flowToolSchema).optional(),
  /** Start in-process, continue on a durable engine at a point (a run may say it too). */
  handoff: handoffSchema.optional(),
  chat: chatSettingsSchema.optional(),
  /** Layout for the editor. The engine never reads it. */
  ui: z.record(z.string(), z.unknown()).optional(),
});
export type Flow = z.infer<typeof flowSchema>;
