/**
 * The checkpointed calls of the Inngest and Temporal targets, as source text: model turns
 * through the `ai` SDK (one call per turn, tools offered without `execute`, the SDK's own retries
 * off because the step's policy owns retries), `mock:` models answered inline so the export runs
 * offline, http through fetch, and code steps as plain functions. They run in `step.run` (Inngest)
 * or in activities (Temporal), on Node, so they may read `process.env`.
 */
import { CREDENTIAL_NAME, indentCodeSource } from '@weft/engine';
import ts from 'typescript';
import { annotateParameters } from './code-params.ts';
import { type DurableModule, flowTool } from './durable-steps.ts';
import { blockCommentText, stringLiteral } from './escape.ts';

/** Provider → the import that creates its models, and the source that does. */
const PROVIDERS: Record<string, { module: string; imports: string; create: string }> = {
  openai: {
    module: '@ai-sdk/openai',
    imports: 'createOpenAI',
    create: `case 'openai':
      return createOpenAI({ apiKey: env('OPENAI_API_KEY'), baseURL: process.env.OPENAI_BASE_URL || undefined })(modelId);`,
  },
  anthropic: {
    module: '@ai-sdk/anthropic',
    imports: 'createAnthropic',
    create: `case 'anthropic':
      return createAnthropic({ apiKey: env('ANTHROPIC_API_KEY'), baseURL: process.env.ANTHROPIC_BASE_URL || undefined })(modelId);`,
  },
  local: {
    module: '@ai-sdk/openai-compatible',
    imports: 'createOpenAICompatible',
    create: `case 'local':
      // Any OpenAI-compatible server: Ollama, llama.cpp, vLLM.
      return createOpenAICompatible({
        name: 'local',
        baseURL: env('WEFT_LOCAL_BASE_URL').replace(/\\/+$/, ''),
        apiKey: process.env.WEFT_LOCAL_API_KEY || undefined,
        includeUsage: true,
        supportsStructuredOutputs: true,
      }).chatModel(modelId);`,
  },
};

/** The providers the flow's models need from the `ai` SDK (`mock` needs none). */
export function sdkProviders(module: DurableModule): string[] {
  return [...module.providers].filter((provider) => Object.hasOwn(PROVIDERS, provider)).sort();
}

/** Import lines the executors need (besides the target's own). */
export function executorImports(module: DurableModule): string[] {
  const crypto = module.uses.has('http') ? ["import { createHash } from 'node:crypto';"] : [];
  const providers = sdkProviders(module);
  if (!module.uses.has('modelTurn') || providers.length === 0) return crypto;
  return [
    ...crypto,
    "import { APICallError, generateText, jsonSchema, type JSONSchema7, type LanguageModel, type ModelMessage, Output, stepCountIs, type Tool, tool } from 'ai';",
    ...providers.map(
      (provider) => `import { ${PROVIDERS[provider]!.imports} } from ${stringLiteral(PROVIDERS[provider]!.module)};`,
    ),
  ];
}

/** Environment variables the module reads for model keys. */
export function modelEnvironment(module: DurableModule): string[] {
  const names: Record<string, string> = {
    openai: 'OPENAI_API_KEY',
    anthropic: 'ANTHROPIC_API_KEY',
    local: 'WEFT_LOCAL_BASE_URL',
  };
  return sdkProviders(module).map((provider) => names[provider]!);
}

/**
 * The executor functions. `exported` marks them `export` (Temporal activities);
 * `nonRetryable` is the target's expression for an error that must not be retried.
 */
export function executorsSource(module: DurableModule, exported: boolean, signal = 'signal?: AbortSignal'): string {
  const x = exported ? 'export ' : '';
  const parts: string[] = [];
  if (module.uses.has('modelTurn')) parts.push(modelSource(module, x, signal));
  if (module.uses.has('http')) parts.push(httpSource(x, signal));
  for (const [name, { source, owner }] of module.codeFunctions) {
    const what = name.endsWith('Tool') && flowTool(module.flow, owner) ? `tool '${owner}'` : `code step '${owner}'`;
    const signature = `${x}async function ${name}(args: any, input: any, steps: any): Promise<any>`;
    const text = `${signature} {${indentCodeSource(annotateParameters(source))}}`;
    if (!isOneFunction(text, name)) {
      // A source that does not parse, or ends the function and goes on (`} process.exit(1); {`),
      // would be module code run on import: it fails when the step runs, as the sandbox would.
      const message = stringLiteral(`the source of ${what} is not a function body`);
      parts.push(
        `/** The body of ${blockCommentText(what)}: its source does not parse as one. */\n${signature} {\n  throw nonRetryable(${message});\n}`,
      );
      continue;
    }
    parts.push(
      `/**\n * The body of ${blockCommentText(what)}, as written in the flow (untyped parameters get \`: any\` for --strict).\n * It receives its evaluated args, the run input and every visible step output.\n */\n// prettier-ignore\n${text}`,
    );
  }
  return parts.join('\n\n');
}

/** Does `text` parse as exactly one function declaration, `name`, and nothing else? */
function isOneFunction(text: string, name: string): boolean {
  const file = ts.createSourceFile('code.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const diagnostics = (file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics;
  const [only, ...rest] = file.statements;
  return (
    diagnostics.length === 0 &&
    rest.length === 0 &&
    only !== undefined &&
    ts.isFunctionDeclaration(only) &&
    only.name?.text === name
  );
}

function modelSource(module: DurableModule, x: string, signal: string): string {
  const providers = sdkProviders(module);
  const mock = `/** \`mock:echo\`: answers with the last user message, usage counted in words (offline, for demos and tests). */
function mockTurn(request: ModelTurnRequest): ModelTurn {
  if (request.model !== 'mock:echo') throw nonRetryable(\`unknown mock model "\${request.model}"; the mock provider offers "mock:echo"\`);
  const textOf = (message: any): string =>
    typeof message?.content === 'string'
      ? message.content
      : Array.isArray(message?.content)
        ? message.content.filter((part: any) => part?.type === 'text').map((part: any) => part.text).join('\\n')
        : '';
  const words = (text: string) => text.split(/\\s+/).filter(Boolean).length;
  const reply = textOf(request.messages.findLast((message) => message?.role === 'user'));
  const inputTokens = words(request.system ?? '') + request.messages.reduce((sum: number, m) => sum + words(textOf(m)), 0);
  const outputTokens = words(reply);
  const turn: ModelTurn = {
    text: reply,
    toolCalls: [],
    responseMessages: reply ? [{ role: 'assistant', content: [{ type: 'text', text: reply }] }] : [],
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    finishReason: 'stop',
  };
  if (request.schema !== undefined) {
    try {
      turn.object = JSON.parse(reply);
    } catch {
      throw new Error(\`model mock:echo did not return an object matching the schema\`);
    }
  }
  return turn;
}`;
  if (providers.length === 0) {
    return `${mock}

/** One model call. Every model in this flow is a \`mock:\` model, so no provider is needed. */
${x}async function modelTurn(request: ModelTurnRequest, ${signal}): Promise<ModelTurn> {
  return mockTurn(request);
}`;
  }
  const cases = providers.map((provider) => PROVIDERS[provider]!.create).join('\n');
  return `function env(name: string): string {
  const value = process.env[name];
  if (!value) throw nonRetryable(\`\${name} must be set in the environment\`);
  return value;
}

/** "openai:gpt-4o-mini" → an \`ai\` SDK model. Keys come from the environment, never from the flow. */
function languageModel(spec: string): LanguageModel {
  const colon = spec.indexOf(':');
  const modelId = spec.slice(colon + 1);
  switch (spec.slice(0, colon)) {
    ${cases}
    default:
      throw nonRetryable(\`unknown model provider in "\${spec}"\`);
  }
}

${mock}

/**
 * One model call: tools are offered without \`execute\` (each tool call is its own checkpoint) and
 * the SDK stops after one step and does not retry (the step's policy does).
 */
${x}async function modelTurn(request: ModelTurnRequest, ${signal}): Promise<ModelTurn> {
  if (request.model.startsWith('mock:')) return mockTurn(request);
  const tools: Record<string, Tool> = {};
  for (const spec of request.tools) {
    tools[spec.name] = tool({ description: spec.description, inputSchema: jsonSchema(spec.parameters as JSONSchema7) });
  }
  try {
    const result = await generateText({
      model: languageModel(request.model),
      instructions: request.system || undefined,
      messages: request.messages as ModelMessage[],
      // A conversation carried over from another step may hold system messages.
      allowSystemInMessages: true,
      tools: request.tools.length > 0 ? tools : undefined,
      stopWhen: stepCountIs(1),
      maxRetries: 0,
      abortSignal: signal,
      output: request.schema ? Output.object({ schema: jsonSchema(request.schema as JSONSchema7) }) : undefined,
    });
    const turn: ModelTurn = {
      text: result.text,
      // A call the SDK could not parse is already answered with an error result in responseMessages.
      toolCalls: result.toolCalls
        .filter((call) => !(call as { invalid?: boolean }).invalid)
        .map((call) => ({ id: call.toolCallId, tool: call.toolName, args: call.input })),
      responseMessages: JSON.parse(JSON.stringify(result.responseMessages)),
      usage: {
        inputTokens: result.usage.inputTokens ?? 0,
        outputTokens: result.usage.outputTokens ?? 0,
        totalTokens: result.usage.totalTokens ?? (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0),
      },
      finishReason: result.finishReason,
    };
    if (request.schema) turn.object = result.output;
    return turn;
  } catch (error) {
    // 400/401/403/404 mean a bad request, key or model name: retrying cannot fix them.
    if (APICallError.isInstance(error) && !error.isRetryable) throw nonRetryable(\`model call to \${request.model} failed: \${error.message}\`);
    throw error;
  }
}`;
}

function httpSource(x: string, signal: string): string {
  return `/** Header names that carry a credential (Weft's own rule, written out). */
const CREDENTIAL_HEADER = ${CREDENTIAL_NAME};

/**
 * One HTTP request. Non-2xx responses are results (the flow decides); a JSON body is parsed.
 * \`call\` names the checkpoint: its Idempotency-Key (the IETF draft's header) is the SHA-256 of
 * the engine's run id and the step path, the same on every attempt, so a receiver can act once.
 */
${x}async function httpRequest(request: HttpRequest, call: { runId: string; stepId: string }, ${signal}): Promise<HttpResponse> {
  const method = (request.method || 'GET').toUpperCase();
  const headers = new Headers(request.headers);
  for (const [name, variable] of Object.entries(request.secretHeaders ?? {})) headers.set(name, process.env[variable] ?? '');
  if (request.idempotencyKey !== false && !headers.has('idempotency-key')) {
    const key = createHash('sha256').update(\`\${call.runId}\\u0000\${call.stepId}\`).digest('base64url');
    headers.set('idempotency-key', \`"\${key}"\`);
  }
  let body: string | undefined;
  if (request.body !== undefined && request.body !== null) {
    if (method === 'GET' || method === 'HEAD') throw nonRetryable(\`http \${method} request cannot have a body\`);
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (typeof request.body !== 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  // Redirects by hand, as Weft does: credentials meant for one origin never reach another.
  let url = new URL(request.url);
  let current = method;
  let response: Response;
  for (let hop = 0; ; hop++) {
    response = await fetch(url, { method: current, headers, body, signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) break;
    await response.body?.cancel();
    if (hop >= 5) throw nonRetryable(\`http \${method} \${url.origin}\${url.pathname}: too many redirects\`);
    const next = new URL(location, url);
    if (next.origin !== url.origin) {
      for (const name of [...headers.keys()]) if (CREDENTIAL_HEADER.test(name)) headers.delete(name);
    }
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && current === 'POST')) {
      if (current !== 'HEAD') current = 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    url = next;
  }
  const text = await response.text();
  let parsed: unknown = text;
  if (/\\bjson\\b|\\+json\\b/i.test(response.headers.get('content-type') ?? '') && text.trim() !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      // A server that says JSON but sends something else: hand the flow the raw text.
    }
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body: parsed };
}`;
}
