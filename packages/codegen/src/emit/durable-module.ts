/**
 * What the Inngest and Temporal modules share: the flow body (`runFlow`), the orchestration
 * and call sources, the header comment and the input type. Everything is printed first and
 * assembled after, because printing is what tells which helpers, calls and types are needed.
 */
import type { Flow } from '@weft/engine';
import { executorImports, executorsSource, modelEnvironment } from './durable-executors.ts';
import { ERROR_MESSAGE_SOURCE, orchestration } from './durable-runtime.ts';
import { DurableModule, emitDurableSteps } from './durable-steps.ts';
import { docComment, lineComment } from './escape.ts';
import { inlineRuntime } from './inline-helpers.ts';
import { typeDeclaration } from './json-schema.ts';
import { SecretNames } from './secrets.ts';

export interface DurableBody {
  module: DurableModule;
  /** The statements of `runFlow` (to see which runtime functions they call). */
  code: string;
  runFlow: string;
  orchestration: string;
  executors: string;
  imports: string[];
}

export function durableBody(flow: Flow, executorsExported = false, signal?: string): DurableBody {
  const module = new DurableModule(flow, new SecretNames());
  const { code, last } = emitDurableSteps(flow.steps, module);
  const output = flow.output === undefined ? last : module.needs.value(flow.output);
  const runFlow = `/** The flow: its steps in order, each durable operation through \`durable\`. */
async function runFlow(input: Input, durable: Durable): Promise<any> {
  const steps: Steps = {};
${code}
  return ${output};
}`;
  return {
    module,
    code,
    runFlow,
    orchestration: orchestration(module, code),
    executors: executorsSource(module, executorsExported, signal),
    imports: executorImports(module),
  };
}

/** The expression helpers and error text helper: call after everything else is printed. */
export function runtimeSource(module: DurableModule): string {
  return [inlineRuntime(module.needs), ERROR_MESSAGE_SOURCE].filter((part) => part !== '').join('\n\n');
}

/** `support-triage` → `supportTriage`. */
export function camelId(id: string): string {
  const camel = id.replace(/[-_]+([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/[-_]/g, '');
  return /^[0-9]/.test(camel) ? `flow${camel}` : camel;
}

export function header(flow: Flow, what: string, module: DurableModule, notes: string[]): string {
  const env = [...modelEnvironment(module), ...module.secrets.names];
  const lines = [
    `Flow '${flow.id}'${flow.version === undefined ? '' : ` v${flow.version}`} (${flow.name}), exported by Weft as ${what}.`,
    ...(flow.description === undefined ? [] : [flow.description]),
    ...notes,
    ...(env.length > 0 ? [`Secrets are not written here: set ${env.join(', ')} in the environment.`] : []),
  ];
  return lines.map(lineComment).join('\n');
}

export function inputType(flow: Flow): string {
  return `${docComment(`The run input of '${flow.name}'.`)}\nexport ${typeDeclaration('Input', flow.input)}`;
}
