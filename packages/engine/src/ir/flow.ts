/** The flow document (IR v1): the contract between editor, engine, adapters and export. */
import { z } from 'zod';
import { FORBIDDEN_PROPERTIES } from '../expr/limits.ts';
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
    })
    .optional(),
});
export type FlowTool = z.infer<typeof flowToolSchema>;

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
  /** Layout for the editor. The engine never reads it. */
  ui: z.record(z.string(), z.unknown()).optional(),
});
export type Flow = z.infer<typeof flowSchema>;
