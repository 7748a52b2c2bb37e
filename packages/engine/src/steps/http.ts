/**
 * `http`: one HTTP request, checkpointed. Private addresses are refused by the host unless allowed.
 *
 * Credentials: the request handed to the executor carries the real header values, but the
 * `step.started` event (stored, and streamed to the browser) shows them as "[redacted]". Which
 * names carry a credential is defined once here (`isCredentialHeader`) and shared with the
 * executor (dropped on a cross-origin redirect) and with codegen (never exported as literals).
 */
import { z } from 'zod';
import { childrenOf, type ExprNode } from '../expr/ast.ts';
import { compileExpression } from '../expr/compile.ts';
import { isExpression, isTemplate } from '../expr/resolve.ts';
import { compileTemplate } from '../expr/template.ts';
import type { CompiledExpression } from '../expr/types.ts';
import { renderValue } from '../expr/values.ts';
import type { StepContext, StepHandler } from '../interpreter/context.ts';
import type { HttpCallInput } from '../interpreter/host.ts';
import { baseStepShape, templateSchema, valueSchema } from '../ir/common.ts';
import type { Json } from '../json.ts';
import type { StepManifest } from './manifest.ts';

/**
 * The opt-out from the `Idempotency-Key` header, on the step and on a flow's http tools. The
 * default is declared, not applied (`.default()` would write it into every validated flow): the
 * editor shows an absent field as on.
 */
export const idempotencyKeySchema = z
  .boolean({
    error: 'idempotencyKey must be true (send an Idempotency-Key header, the default) or false (send none)',
  })
  .meta({ default: true });

export const httpStepSchema = z.strictObject({
  ...baseStepShape,
  type: z.literal('http'),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).optional(),
  url: templateSchema,
  headers: z.record(z.string(), templateSchema).optional(),
  body: valueSchema.optional(),
  /**
   * Whether the request carries an `Idempotency-Key` header derived from the run and the step
   * (the same on every attempt and after a crash, so the receiver can drop a repeat). Default
   * true; false sends none (for a receiver that refuses unknown headers).
   */
  idempotencyKey: idempotencyKeySchema.optional(),
});
export type HttpStep = z.infer<typeof httpStepSchema>;

/** What an event shows in place of a credential. */
export const REDACTED = '[redacted]';

// The well-known credential headers by exact name, then any name that says it holds one.
// Deliberately broad ("auth" also matches "x-author"): hiding a harmless value costs little,
// showing or forwarding a secret costs a lot.
export const CREDENTIAL_NAME =
  /^(authorization|proxy-authorization|cookie|x-api-key|api-key|apikey)$|token|secret|password|api[-_]?key|auth/i;

/**
 * True for a header (or query parameter, or input field) name that carries a credential:
 * authorization, proxy-authorization, cookie, x-api-key, api-key, and any name containing
 * token, secret, password, api key or auth. Case-insensitive.
 */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

const httpHandler: StepHandler<HttpStep, HttpCallInput> = {
  describeInput(step, ctx) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(step.headers ?? {})) headers[name] = String(ctx.resolve(value));
    const request: HttpCallInput = {
      method: step.method ?? 'GET',
      url: String(ctx.resolve(step.url)),
      headers,
    };
    if (step.body !== undefined) request.body = ctx.resolve(step.body);
    // Only the opt-out is written down: a request without it hashes as it always did, so the
    // seeds of runs recorded before the field existed still answer their calls.
    if (step.idempotencyKey === false) request.idempotencyKey = false;
    return request;
  },
  redactInput(step, input, ctx) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.headers)) {
      const source = step.headers?.[name];
      headers[name] = isCredentialHeader(name) || (source !== undefined && readsCredential(source)) ? REDACTED : value;
    }
    const shown: HttpCallInput = { ...input, url: redactUrl(input.url, step.url, ctx), headers };
    return shown as unknown as Json;
  },
  async execute(_step, ctx, input) {
    return ctx.host.run(ctx.path, { kind: 'http', input }, ctx.policy);
  },
};

/** Everything `http` means, for the registry, the validator, code-first, codegen and the editor. */
export const httpStep: StepManifest<HttpStep> = {
  type: 'http',
  schema: httpStepSchema,
  handler: httpHandler,
  fields: {
    method: { kind: 'literal' },
    url: { kind: 'template' },
    headers: { kind: 'template-record' },
    body: { kind: 'value' },
    idempotencyKey: { kind: 'literal' },
  },
  editor: {
    label: 'HTTP',
    icon: 'exchange',
    description: 'Make an HTTP request and keep status, headers and body.',
    shape: 'node',
    defaults: { method: 'GET', url: 'https://example.com' },
  },
};

/**
 * Whether a config value "came from a secret". The IR has no secret store: a credential reaches
 * a flow as data, so a value counts as secret when its expression/template reads a field whose
 * name says it holds one — `Bearer {{ input.apiToken }}`, `=steps.login.output.session_token`,
 * `{{ input['clientSecret'] }}`. A value that cannot be compiled reads nothing.
 */
function readsCredential(source: string): boolean {
  return compiledParts(source).some((expr) => namesIn(expr.ast).some(isCredentialHeader));
}

function compiledParts(source: string): CompiledExpression[] {
  try {
    if (isExpression(source)) return [compileExpression(source)];
    if (isTemplate(source)) return compileTemplate(source).parts.filter((part) => typeof part !== 'string');
  } catch {
    // Not valid IR: describeInput has already failed the step, or (code-first) it is a literal.
  }
  return [];
}

/** The field names an expression reads: `a.name` and `a['name']`. */
function namesIn(root: ExprNode): string[] {
  const names: string[] = [];
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type === 'Member') names.push(node.property);
    if (node.type === 'Index' && node.index.type === 'Literal' && typeof node.index.value === 'string') {
      names.push(node.index.value);
    }
    stack.push(...childrenOf(node));
  }
  return names;
}

/**
 * The URL as an event shows it: what a credential field rendered into it (a token in the path
 * or query) is masked, then userinfo (`user:pass@`) and the values of credential-named query
 * parameters (`?api_key=…`). Display only: the executor gets the real URL.
 */
function redactUrl(url: string, source: string, ctx: StepContext): string {
  let shown = url;
  if (isExpression(source) && readsCredential(source)) return REDACTED; // no way to tell which part
  for (const expr of compiledParts(source)) {
    if (!namesIn(expr.ast).some(isCredentialHeader)) continue;
    let secret: string;
    try {
      secret = renderValue(expr.evaluate(ctx.scope));
    } catch {
      return REDACTED; // it rendered in describeInput; if it cannot now, show nothing rather than guess
    }
    if (secret !== '') shown = shown.replaceAll(secret, REDACTED);
  }
  return redactQuery(redactUserinfo(shown));
}

function redactUserinfo(url: string): string {
  // The authority runs to the first / ? # or \ (a slash, to the WHATWG parser); userinfo ends at its last @.
  const authority = /^([a-z][a-z0-9+.-]*:)?\/\/([^/?#\\]*)/i.exec(url);
  if (!authority) return url;
  const at = authority[2]!.lastIndexOf('@');
  if (at < 0) return url;
  const start = authority[0].length - authority[2]!.length;
  return `${url.slice(0, start)}${REDACTED}${url.slice(start + at)}`;
}

function redactQuery(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const params = url.slice(query + 1, end).split('&');
  const shown = params.map((param) => {
    const eq = param.indexOf('=');
    return eq >= 0 && isCredentialHeader(decodeName(param.slice(0, eq))) ? `${param.slice(0, eq)}=${REDACTED}` : param;
  });
  return `${url.slice(0, query + 1)}${shown.join('&')}${url.slice(end)}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}
