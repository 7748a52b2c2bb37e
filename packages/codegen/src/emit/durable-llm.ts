/**
 * The llm step's share of the orchestration runtime (see durable-runtime.ts), as source text:
 * `runLlm`, one model call or an agent loop that checkpoints every model turn and every tool
 * call, and `runTool`/`TOOL_SPECS`, the flow's own tools as the model sees and calls them.
 * Kept apart because the agent loop and the tool dispatch are the largest generated pieces
 * and change together; the emitted text relies on `settleAll`, `errorMessage` and `failure`
 * from the rest of the runtime.
 */
import type { DurableModule } from './durable-steps.ts';
import { propertyKey, stringLiteral } from './escape.ts';
import { jsonLiteral } from './values.ts';

/** `runLlm`: one checkpointed model call when the flow calls no tools, else the agent loop. */
export function llmSource(module: DurableModule): string {
  const messages = `const messages: any[] = [];
  if (config.messages !== undefined) {
    const earlier = config.messages;
    if (!Array.isArray(earlier) || !earlier.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m))) {
      throw failure('messages must evaluate to an array of message objects');
    }
    messages.push(...earlier);
  }
  if (config.prompt !== undefined) messages.push({ role: 'user', content: config.prompt });`;
  if (!toolUse(module)) {
    return `/** llm: one model call (\`<id>/llm#1\`), checkpointed. Its output carries the whole conversation. */
async function runLlm(durable: Durable, id: string, policy: PolicyName, config: LlmConfig): Promise<LlmOutput> {
  ${messages}
  const request: ModelTurnRequest = { model: config.model, messages: [...messages], tools: [] };
  if (config.system !== undefined) request.system = config.system;
  if (config.schema !== undefined) request.schema = config.schema;
  const turn = await durable.modelTurn(\`\${id}/llm#1\`, policy, request);
  const output: LlmOutput = {
    text: turn.text,
    messages: [...messages, ...turn.responseMessages],
    toolCalls: [],
    usage: turn.usage,
    finishReason: turn.finishReason,
  };
  if (turn.object !== undefined) output.object = turn.object;
  return output;
}`;
  }
  return `/**
 * llm: one model call, or an agent loop when \`maxSteps\` > 1. Each model call (\`<id>/llm#<turn>\`) and
 * each tool call (\`<id>/tool#<turn>.<n>\`) is its own checkpoint; a failing tool answers the model
 * with its error instead of failing the step.
 */
async function runLlm(
  durable: Durable,
  id: string,
  policy: PolicyName,
  config: LlmConfig,
  /** Given when the step offers tools: an http tool may read the run input. */
  input?: Input,
): Promise<LlmOutput> {
  ${messages}
  const tools = (config.tools ?? []).map(toolSpec);
  const toolCalls: LlmOutput['toolCalls'] = [];
  const usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let last: ModelTurn | undefined;
  for (let turn = 1; turn <= (config.maxSteps ?? 1); turn++) {
    const request: ModelTurnRequest = { model: config.model, messages: [...messages], tools };
    if (config.system !== undefined) request.system = config.system;
    if (config.schema !== undefined) request.schema = config.schema;
    last = await durable.modelTurn(\`\${id}/llm#\${turn}\`, policy, request);
    messages.push(...last.responseMessages);
    usage.inputTokens += last.usage.inputTokens;
    usage.outputTokens += last.usage.outputTokens;
    usage.totalTokens += last.usage.totalTokens;
    if (last.toolCalls.length === 0) {
      // The SDK answers a malformed tool call itself with an error result: let the model retry.
      if (last.responseMessages.at(-1)?.role === 'tool') continue;
      break;
    }
    const calls = last.toolCalls;
    const results = await settleAll(
      calls.map(async (call, index) => {
        const base = { type: 'tool-result', toolCallId: call.id, toolName: call.tool };
        try {
          const value = await runTool(durable, \`\${id}/tool#\${turn}.\${index}\`, policy, call.tool, call.args, input as Input);
          return { value, part: { ...base, output: { type: 'json', value } } };
        } catch (error) {
          const message = errorMessage(error);
          return { value: { error: message }, part: { ...base, output: { type: 'error-text', value: message } } };
        }
      }),
    );
    calls.forEach((call, index) => toolCalls.push({ ...call, result: results[index]!.value }));
    messages.push({ role: 'tool', content: results.map((result) => result.part) });
  }
  const output: LlmOutput = {
    text: last?.text ?? '',
    messages,
    toolCalls,
    usage,
    finishReason: last?.finishReason ?? 'stop',
  };
  if (last?.object !== undefined) output.object = last.object;
  return output;
}`;
}

/** Does the flow call tools (from an llm step or a tool step)? */
export function toolUse(module: DurableModule): boolean {
  return module.toolNames.size > 0;
}

/** `TOOL_SPECS`, `toolSpec` and `runTool` for the tools the flow calls; '' when it calls none. */
export function toolsSource(module: DurableModule): string {
  if (!toolUse(module)) return '';
  const tools = module.flow.tools ?? {};
  const own = Object.entries(tools).filter(([name]) => module.toolNames.has(name));
  const specs = own.map(
    ([name, tool]) =>
      `${propertyKey(name)}: { name: ${stringLiteral(name)}, description: ${stringLiteral(tool.description)}, parameters: ${jsonLiteral(tool.parameters ?? {})} },`,
  );
  const cases = own.map(([name, tool]) => {
    let call: string;
    if (tool.source !== undefined) {
      call = `durable.code(id, policy, ${stringLiteral(module.toolFunction(name))}, args, null, {})`;
    } else if (tool.http !== undefined) {
      const { needs } = module;
      const fields = [`method: ${stringLiteral(tool.http.method ?? 'GET')}`, `url: ${needs.text(tool.http.url)}`];
      const headers: string[] = [];
      const secret: string[] = [];
      for (const [header, value] of Object.entries(tool.http.headers ?? {})) {
        const variable = module.secrets.variable(name, header, value);
        if (variable === undefined) headers.push(`${propertyKey(header)}: ${needs.text(value)}`);
        else secret.push(`${propertyKey(header)}: ${stringLiteral(variable)}`);
      }
      fields.push(`headers: {${headers.length === 0 ? '' : ` ${headers.join(', ')} `}}`);
      if (secret.length > 0) fields.push(`secretHeaders: { ${secret.join(', ')} }`);
      if (tool.http.body !== undefined) fields.push(`body: ${needs.value(tool.http.body)}`);
      if (tool.http.idempotencyKey === false) fields.push('idempotencyKey: false');
      call = `durable.http(id, policy, { ${fields.join(', ')} })`;
    } else {
      call = `durable.spawn(id, ${stringLiteral(module.toolFlow(name))}, args)`;
    }
    return `case ${stringLiteral(name)}:\nreturn ${call};`;
  });
  const fallback = module.uses.has('hostTool')
    ? '// A tool the host application registered in Weft: implement it in hostTool().\nreturn durable.hostTool(id, policy, name, args);'
    : // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
      "throw failure(`unknown tool '${name}'`);";
  const hostSpec = module.uses.has('hostTool')
    ? // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
      "\n  // A host tool: describe it here so the model knows how to call it.\n  return { name, description: `the host tool '${name}'`, parameters: { type: 'object' } };"
    : // biome-ignore lint/suspicious/noTemplateCurlyInString: the emitted TypeScript's own template literal.
      "\n  throw failure(`unknown tool '${name}'`);";
  return `/** The flow's own tools, as the model sees them. */
const TOOL_SPECS: Record<string, ToolSpec> = {
${specs.join('\n')}
};

function toolSpec(name: string): ToolSpec {
  // Own properties only: a tool the model names \`constructor\` is not Object's.
  if (Object.hasOwn(TOOL_SPECS, name)) return TOOL_SPECS[name]!;${hostSpec}
}

/** Calls tool \`name\`: a code tool runs as code, an http tool as a request, a flow tool as a child run. */
async function runTool(durable: Durable, id: string, policy: PolicyName, name: string, args: any, input: Input): Promise<any> {
  switch (name) {
${cases.join('\n')}
default:
${fallback}
  }
}`;
}
