/**
 * A flow's steps as the body of a durable function, shared by the Inngest and Temporal targets.
 * The body is plain TypeScript over a `durable` object that the target builds from its own
 * primitives (`step.run`/`step.waitForEvent`/… or activities/`condition`/…), so the flow's
 * logic reads the same in both and the mapping onto the backend sits in one visible place.
 *
 * Semantics follow the interpreter: each step's output lands in `steps.<id> = { output }`;
 * `branch` runs inline in the same scope; `parallel`, `map` and `loop` run their steps in a
 * child scope (`runParallel`/`runMap`/`runLoop`, see durable-runtime.ts); checkpoint ids are the
 * interpreter's step paths (`route/escalate`, `fanout.a/fetch`, `each[2]/summarize`,
 * `agent/llm#3`), built from `at`, the id prefix a container passes to its steps.
 */
import { durationMs, type Flow, type FlowTool, type Step } from '@weft/engine';
import { blockCommentText, lineComment, propertyKey, stringLiteral, templateText, variableName } from './escape.ts';
import type { SecretNames } from './secrets.ts';
import { jsonLiteral, ModuleNeeds } from './values.ts';

/** Durable operations a module may need; the target implements only those used. */
export type DurableOp = 'modelTurn' | 'http' | 'code' | 'hostTool' | 'approval' | 'sleep' | 'spawn';

export interface RetryPolicy {
  maxAttempts: number;
  backoff: 'fixed' | 'exponential';
  initialDelayMs: number;
  maxDelayMs: number;
  timeoutMs?: number;
}

/** Step types whose calls the interpreter retries by default (interpret.ts DEFAULT_ATTEMPTS). */
const DEFAULT_ATTEMPTS: Partial<Record<Step['type'], number>> = { llm: 3, http: 3 };

/** What printing the body found the module needs. */
export class DurableModule {
  readonly needs = new ModuleNeeds();
  readonly uses = new Set<DurableOp>();
  /** Retry/timeout policies by name, in first-use order. */
  readonly policies = new Map<string, RetryPolicy>();
  /** Code step and code tool bodies by function name: the IR source, verbatim. */
  readonly codeFunctions = new Map<string, { source: string; owner: string }>();
  /** Flow ids spawned by a step or called as a tool. */
  readonly childFlows = new Set<string>();
  /** Every `provider:` prefix the flow's models use. */
  readonly providers = new Set<string>();
  /** Every tool the flow calls (its own or the host's), by name. */
  readonly toolNames = new Set<string>();
  readonly secrets: SecretNames;
  readonly flow: Flow;

  constructor(flow: Flow, secrets: SecretNames) {
    this.flow = flow;
    this.secrets = secrets;
  }

  policy(step: Step): string {
    const maxAttempts = step.retry?.maxAttempts ?? DEFAULT_ATTEMPTS[step.type] ?? 1;
    const policy: RetryPolicy = { maxAttempts, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 };
    if (step.retry) {
      policy.backoff = step.retry.backoff ?? 'exponential';
      policy.initialDelayMs = durationMs(step.retry.initialDelay ?? '1s');
      if (step.retry.maxDelay !== undefined) policy.maxDelayMs = durationMs(step.retry.maxDelay);
    }
    if (step.timeout !== undefined) policy.timeoutMs = durationMs(step.timeout);
    const custom = step.retry !== undefined || step.timeout !== undefined;
    let name = custom ? step.id : maxAttempts > 1 ? 'RETRIED' : 'DEFAULT';
    if (custom && (name === 'RETRIED' || name === 'DEFAULT')) name = `${name}_step`;
    this.policies.set(name, policy);
    return name;
  }

  /** The code function of flow tool `name` (a tool with `source`). */
  toolFunction(name: string): string {
    return toolFunctionName(name);
  }

  /** The flow id a flow tool runs. */
  toolFlow(name: string): string {
    return flowIdOf(flowTool(this.flow, name)?.flow ?? name);
  }

  codeFunction(owner: string, name: string, source: string): string {
    this.codeFunctions.set(name, { source, owner });
    this.uses.add('code');
    return name;
  }
}

/** A flow tool's code function name (`percent_changeTool`); tool names may hold `-`. */
export function toolFunctionName(tool: string): string {
  return `${tool.replace(/[^A-Za-z0-9_$]/g, '_')}Tool`;
}

/** Where ids are built: top level (`'classify'`), or inside a container (`` `${at}classify` ``). */
interface Place {
  /** Static text after the dynamic prefix, e.g. "route/" inside a branch. */
  suffix: string;
  /** Inside a container closure, whose `at` parameter starts every id. */
  nested: boolean;
}

const TOP: Place = { suffix: '', nested: false };

function idOf(place: Place, id: string): string {
  return place.nested ? `\`\${at}${templateText(place.suffix + id)}\`` : stringLiteral(place.suffix + id);
}

/** The statements of a step list, each step's output stored in `steps`. Returns the code and the list's last output. */
export function emitDurableSteps(
  steps: readonly Step[],
  module: DurableModule,
  place: Place = TOP,
): { code: string; last: string } {
  const code: string[] = [];
  let last = 'null';
  for (const step of steps) {
    const comment = step.name === undefined ? '' : `${lineComment(step.name)}\n`;
    code.push(comment + emitStep(step, module, place));
    last = step.type === 'fail' ? 'null' : `steps.${step.id}.output`;
  }
  return { code: code.join('\n'), last };
}

function store(step: Step, value: string): string {
  return `steps.${step.id} = { output: ${value} };`;
}

function emitStep(step: Step, module: DurableModule, place: Place): string {
  const { needs } = module;
  const id = idOf(place, step.id);
  switch (step.type) {
    case 'transform':
      return store(step, needs.value(step.value));
    case 'llm': {
      module.uses.add('modelTurn');
      module.providers.add(step.model.slice(0, step.model.indexOf(':')));
      const fields: string[] = [`model: ${jsonLiteral(step.model)}`];
      if (step.system !== undefined) fields.push(`system: ${needs.text(step.system)}`);
      if (step.messages !== undefined) fields.push(`messages: ${needs.expression(step.messages)}`);
      if (step.prompt !== undefined) fields.push(`prompt: ${needs.text(step.prompt)}`);
      if (step.tools !== undefined && step.tools.length > 0) {
        fields.push(`tools: ${jsonLiteral(step.tools)}`);
        for (const tool of step.tools) useTool(tool, module);
      }
      if (step.maxSteps !== undefined) fields.push(`maxSteps: ${step.maxSteps}`);
      if (step.schema !== undefined) fields.push(`schema: ${jsonLiteral(step.schema)}`);
      const policy = stringLiteral(module.policy(step));
      const tools = step.tools !== undefined && step.tools.length > 0 ? ', input' : '';
      return store(step, `await runLlm(durable, ${id}, ${policy}, { ${fields.join(', ')} }${tools})`);
    }
    case 'tool': {
      useTool(step.tool, module);
      const args = needs.value(step.args ?? {});
      return store(
        step,
        `await runTool(durable, ${id}, ${stringLiteral(module.policy(step))}, ${stringLiteral(step.tool)}, ${args}, input)`,
      );
    }
    case 'code': {
      const name = module.codeFunction(step.id, `${step.id}Code`, step.source);
      const args = needs.value(step.args ?? {});
      const call = `durable.code(${id}, ${stringLiteral(module.policy(step))}, ${stringLiteral(name)}, ${args}, input, steps)`;
      return store(step, `await ${call}`);
    }
    case 'http': {
      module.uses.add('http');
      const fields = [`method: ${jsonLiteral(step.method ?? 'GET')}`, `url: ${needs.text(step.url)}`];
      const headers: string[] = [];
      const secret: string[] = [];
      for (const [name, value] of Object.entries(step.headers ?? {})) {
        const variable = module.secrets.variable(step.id, name, value);
        if (variable === undefined) headers.push(`${propertyKey(name)}: ${needs.text(value)}`);
        else secret.push(`${propertyKey(name)}: ${stringLiteral(variable)}`);
      }
      fields.push(`headers: {${headers.length === 0 ? '' : ` ${headers.join(', ')} `}}`);
      if (secret.length > 0) fields.push(`secretHeaders: { ${secret.join(', ')} }`);
      if (step.body !== undefined) fields.push(`body: ${needs.value(step.body)}`);
      if (step.idempotencyKey === false) fields.push('idempotencyKey: false');
      const call = `durable.http(${id}, ${stringLiteral(module.policy(step))}, { ${fields.join(', ')} })`;
      return store(step, `await ${call}`);
    }
    case 'branch': {
      const arm = (steps: readonly Step[]) => {
        const { code, last } = emitDurableSteps(steps, module, { ...place, suffix: `${place.suffix}${step.id}/` });
        const ends = steps.at(-1)?.type === 'fail';
        return `${code}${ends ? '' : `${code === '' ? '' : '\n'}${store(step, last)}`}`;
      };
      const cases = step.cases.map(
        (branchCase, index) =>
          `${index === 0 ? '' : ' else '}if (${needs.expression(branchCase.when)}) {\n${arm(branchCase.steps)}\n}`,
      );
      return `${cases.join('')} else {\n${arm(step.else ?? [])}\n}`;
    }
    case 'parallel': {
      const branches = Object.entries(step.branches).map(
        ([name, steps]) => `${propertyKey(name)}: ${closure(steps, module, 'steps, at')}`,
      );
      return store(step, `await runParallel(steps, ${id}, { ${branches.join(', ')} })`);
    }
    case 'map': {
      // The item parameter has the map's name (`as`): the expressions inside read it so.
      const body = closure(step.steps, module, `steps, at, ${variableName(step.as ?? 'item')}, index`);
      const concurrency = step.concurrency ?? 10;
      return store(step, `await runMap(steps, ${id}, ${needs.expression(step.items)}, ${concurrency}, ${body})`);
    }
    case 'loop': {
      const condition = `(steps, iteration) => ${needs.condition(step.while)}`;
      const body = closure(step.steps, module, 'steps, at, iteration');
      return store(step, `await runLoop(steps, ${id}, ${step.maxIterations ?? 100}, ${condition}, ${body})`);
    }
    case 'approval': {
      module.uses.add('approval');
      const fields = [`prompt: ${needs.text(step.prompt)}`];
      if (step.timeout !== undefined) {
        fields.push(`timeout: ${stringLiteral(step.timeout)}`, `timeoutMs: ${durationMs(step.timeout)}`);
      }
      fields.push(`onTimeout: ${stringLiteral(step.onTimeout ?? 'reject')}`);
      return store(step, `await durable.approval(${id}, { ${fields.join(', ')} })`);
    }
    case 'spawn': {
      module.uses.add('spawn');
      const flow = flowIdOf(step.flow);
      module.childFlows.add(flow);
      return store(step, `await durable.spawn(${id}, ${stringLiteral(flow)}, ${needs.value(step.input ?? {})})`);
    }
    case 'sleep':
      module.uses.add('sleep');
      return store(
        step,
        `await durable.sleep(${id}, ${durationMs(step.duration)} /* ${blockCommentText(step.duration)} */)`,
      );
    case 'fail':
      return `throw failure(${needs.text(step.message)});`;
    default:
      return unreachable(step);
  }
}

function closure(steps: readonly Step[], module: DurableModule, params: string): string {
  const { code, last } = emitDurableSteps(steps, module, { suffix: '', nested: true });
  return `async (${params}) => {\n${code}${code === '' ? '' : '\n'}return ${last};\n}`;
}

function useTool(name: string, module: DurableModule): void {
  module.toolNames.add(name);
  const tool = flowTool(module.flow, name);
  if (tool === undefined) module.uses.add('hostTool');
  else if (tool.source !== undefined) module.codeFunction(name, toolFunctionName(name), tool.source);
  else if (tool.http !== undefined) module.uses.add('http');
  else if (tool.flow !== undefined) {
    module.uses.add('spawn');
    module.childFlows.add(flowIdOf(tool.flow));
  }
}

/** The flow's own tool `name`, if it has one (not a host tool, nor `constructor` from Object). */
export function flowTool(flow: Flow, name: string): FlowTool | undefined {
  return flow.tools !== undefined && Object.hasOwn(flow.tools, name) ? flow.tools[name] : undefined;
}

/** "summarize-text@3" → "summarize-text": an export spawns the child export it sits beside. */
export function flowIdOf(ref: string): string {
  const at = ref.indexOf('@');
  return at === -1 ? ref : ref.slice(0, at);
}

function unreachable(step: never): never {
  throw new Error(`unknown step type ${(step as { type: string }).type}`);
}
