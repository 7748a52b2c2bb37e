/**
 * The replay dialog's form, apart from React: which checkpoints of a past run a replay can
 * answer from its record, pin to a typed value or run live; the value a pin starts from (the
 * recorded result, a model turn in its fixture form so its text can be edited); and the form
 * turned into a `runs.replay` request, or the fields that are wrong, each named.
 */
import { isJsonObject, type Json, type RunState, stepOf } from '@weft/engine';

/** Step types that are calls a replay can reuse, pin or run again (as the run service checkpoints them). */
const CALL_TYPES: ReadonlySet<string> = new Set(['model-turn', 'tool-call', 'tool', 'code', 'http', 'spawn']);

export interface Checkpoint {
  id: string;
  stepType: string;
}

/** Per checkpoint: answered as the preview says (recorded before the point, live after), live, or pinned. */
export type CheckpointMode = 'default' | 'live' | 'pinned';

export interface ReplayForm {
  version: 'original' | 'current';
  /** The flow input, as JSON text. */
  input: string;
  approvals: 'reuse' | 'ask';
  backend: string;
  modes: Record<string, CheckpointMode>;
  /** Pinned values as JSON text, by checkpoint. */
  pins: Record<string, string>;
}

export interface ReplayRequest {
  runId: string;
  from: string;
  version: 'original' | 'current';
  input: Json;
  approvals: 'reuse' | 'ask';
  backend?: 'inprocess' | 'temporal' | 'inngest';
  pins?: Record<string, Json>;
  live?: string[];
}

export interface FieldError {
  /** The field as the dialog labels it. */
  field: string;
  message: string;
}

/** The run's checkpoints (calls completed or failed), in the order they started. */
export function checkpointsOf(state: RunState): Checkpoint[] {
  const found: Checkpoint[] = [];
  for (const id of state.order) {
    const step = stepOf(state, id);
    if (step && CALL_TYPES.has(step.stepType) && (step.status === 'completed' || step.status === 'failed'))
      found.push({ id, stepType: step.stepType });
  }
  return found;
}

/**
 * The checkpoint "edit this step's output" pins: the step itself when it is a call, an llm
 * step's last model turn (what its output is made of), or null (nothing to pin: a transform,
 * a branch, a container).
 */
export function pinTargetOf(state: RunState, stepId: string): string | null {
  const step = stepOf(state, stepId);
  if (!step) return null;
  if (CALL_TYPES.has(step.stepType)) return stepId;
  let last: string | null = null;
  for (const id of state.order)
    if (id.startsWith(`${stepId}/llm#`) && !id.slice(stepId.length + 1).includes('/')) last = id;
  return last;
}

/**
 * A checkpoint's recorded result as the value a pin starts from. A model turn is given in its
 * fixture form (`{ text, toolCalls: [{ tool, args }], object }`): the run service turns it into
 * a whole turn, so editing the text cannot leave the conversation holding the old one.
 */
export function pinValueOf(state: RunState, checkpoint: string): Json {
  const step = stepOf(state, checkpoint);
  if (!step) return null;
  const output = step.output;
  if (step.stepType !== 'model-turn' || !isJsonObject(output)) return output;
  const turn: Record<string, Json> = { text: typeof output.text === 'string' ? output.text : '' };
  if (Array.isArray(output.toolCalls) && output.toolCalls.length > 0)
    turn.toolCalls = output.toolCalls.map((call) =>
      isJsonObject(call) ? { tool: call.tool ?? null, args: call.args ?? {} } : call,
    );
  if (output.object !== undefined && output.object !== null) turn.object = output.object;
  return turn;
}

export function pretty(value: Json): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}

/** The form as it opens: the run's input, the recorded version, the chosen step's output pinned if asked. */
export function initialForm(state: RunState, from: string, editOutput: boolean, backend: string): ReplayForm {
  const form: ReplayForm = {
    version: 'original',
    input: pretty(state.input ?? {}),
    approvals: 'reuse',
    backend,
    modes: {},
    pins: {},
  };
  const target = editOutput ? pinTargetOf(state, from) : null;
  return target ? setMode(form, state, target, 'pinned') : form;
}

/**
 * A checkpoint's mode and pinned text as the form holds them. Read as own properties: a step may
 * be called `toString` or `valueOf`, which a plain object answers from Object.prototype.
 */
export function modeOf(form: ReplayForm, checkpoint: string): CheckpointMode {
  return Object.hasOwn(form.modes, checkpoint) ? (form.modes[checkpoint] ?? 'default') : 'default';
}

export function pinTextOf(form: ReplayForm, checkpoint: string): string | undefined {
  return Object.hasOwn(form.pins, checkpoint) ? form.pins[checkpoint] : undefined;
}

/** The form with a checkpoint's mode set; pinning starts from its recorded result (kept if typed already). */
export function setMode(form: ReplayForm, state: RunState, checkpoint: string, mode: CheckpointMode): ReplayForm {
  const modes = { ...form.modes, [checkpoint]: mode };
  if (mode === 'default') delete modes[checkpoint];
  const pins = { ...form.pins };
  if (mode === 'pinned' && pinTextOf(form, checkpoint) === undefined)
    pins[checkpoint] = pretty(pinValueOf(state, checkpoint));
  return { ...form, modes, pins };
}

function parse(text: string, field: string): { ok: true; value: Json } | { ok: false; error: FieldError } {
  if (text.trim() === '') return { ok: false, error: { field, message: 'is empty (give a JSON value)' } };
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch (error) {
    return { ok: false, error: { field, message: `is not valid JSON: ${(error as Error).message}` } };
  }
}

const BACKENDS = new Set(['inprocess', 'temporal', 'inngest']);

/** The request, or every field that is wrong. */
export function buildRequest(
  runId: string,
  from: string,
  form: ReplayForm,
): { ok: true; request: ReplayRequest } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const input = parse(form.input, 'Flow input');
  if (!input.ok) errors.push(input.error);
  const pins: Record<string, Json> = {};
  const live: string[] = [];
  for (const [checkpoint, mode] of Object.entries(form.modes)) {
    if (mode === 'live') live.push(checkpoint);
    if (mode !== 'pinned') continue;
    const value = parse(pinTextOf(form, checkpoint) ?? '', `Pinned value of ${checkpoint}`);
    if (value.ok) pins[checkpoint] = value.value;
    else errors.push(value.error);
  }
  if (!input.ok || errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    request: {
      runId,
      from,
      version: form.version,
      input: input.value,
      approvals: form.approvals,
      ...(BACKENDS.has(form.backend) ? { backend: form.backend as ReplayRequest['backend'] & string } : {}),
      ...(Object.keys(pins).length > 0 ? { pins } : {}),
      ...(live.length > 0 ? { live } : {}),
    },
  };
}
