/**
 * Steps as code-first statements: `await step.<type>('id', { …config })`, one per IR step, in
 * order, with the step's name as a comment above it — or, when a comment cannot hold it exactly
 * (a `\r` or U+2028 in it, trailing spaces), as the config's `name` string. Nested step lists
 * become async functions (`async ({ step, steps }) => { … }`) whose last step is returned: that
 * is the container's output, as in the IR.
 */
import type { Step } from '@weft/engine';
import { isLineCommentExact, lineComment, propertyKey, stringLiteral, variableName } from '../emit/escape.ts';
import type { SecretNames } from '../emit/secrets.ts';
import { jsonLiteral, type ModuleNeeds } from '../emit/values.ts';

export interface StepEmitter {
  needs: ModuleNeeds;
  secrets: SecretNames;
  /** Registers a code step's source as a module-level function; returns its name. */
  codeFunction(stepId: string, source: string): string;
}

/** The statements of a step list; the last step is returned when `returnLast`. */
export function emitSteps(steps: readonly Step[], emitter: StepEmitter, returnLast: boolean): string {
  return steps
    .map((step, index) => {
      const call = `step.${step.type}(${stringLiteral(step.id)}, ${emitConfig(step, emitter)})`;
      const statement = returnLast && index === steps.length - 1 ? `return ${call};` : `await ${call};`;
      const name = commentedName(step);
      return (name === undefined ? '' : `${lineComment(name)}\n`) + statement;
    })
    .join('\n');
}

/** The step's name if it is written as the comment above the step (import reads it back from there). */
function commentedName(step: Step): string | undefined {
  return step.name !== undefined && isLineCommentExact(step.name) ? step.name : undefined;
}

function body(steps: readonly Step[], emitter: StepEmitter, params: string): string {
  return `async (${params}) => {\n${emitSteps(steps, emitter, true)}\n}`;
}

const BODY = '{ step, steps }';

function emitConfig(step: Step, emitter: StepEmitter): string {
  const { needs } = emitter;
  const fields: [string, string | undefined][] = [];
  const field = (key: string, value: string | undefined) => fields.push([key, value]);
  const opt = <T>(value: T | undefined, print: (value: T) => string) =>
    value === undefined ? undefined : print(value);
  switch (step.type) {
    case 'llm':
      field('model', jsonLiteral(step.model));
      field(
        'system',
        opt(step.system, (v) => needs.text(v)),
      );
      field(
        'prompt',
        opt(step.prompt, (v) => needs.text(v)),
      );
      field(
        'messages',
        opt(step.messages, (v) => needs.expression(v)),
      );
      field('tools', opt(step.tools, jsonLiteral));
      field('maxSteps', opt(step.maxSteps, jsonLiteral));
      field('schema', opt(step.schema, jsonLiteral));
      break;
    case 'tool':
      field('tool', jsonLiteral(step.tool));
      field(
        'args',
        opt(step.args, (v) => needs.value(v)),
      );
      break;
    case 'code':
      field('source', emitter.codeFunction(step.id, step.source));
      field(
        'args',
        opt(step.args, (v) => needs.value(v)),
      );
      break;
    case 'http':
      field('method', opt(step.method, jsonLiteral));
      field('url', needs.text(step.url));
      field(
        'headers',
        opt(step.headers, (headers) => emitHeaders(step.id, headers, emitter)),
      );
      field(
        'body',
        opt(step.body, (v) => needs.value(v)),
      );
      field('idempotencyKey', opt(step.idempotencyKey, jsonLiteral));
      break;
    case 'transform':
      field('value', needs.value(step.value));
      break;
    case 'branch':
      field(
        'cases',
        `[${step.cases
          .map((c) => `{ when: () => ${needs.condition(c.when)}, steps: ${body(c.steps, emitter, BODY)} }`)
          .join(', ')}]`,
      );
      field(
        'else',
        opt(step.else, (steps) => body(steps, emitter, BODY)),
      );
      break;
    case 'parallel':
      field(
        'branches',
        `{ ${Object.entries(step.branches)
          .map(([name, steps]) => `${propertyKey(name)}: ${body(steps, emitter, BODY)}`)
          .join(', ')} }`,
      );
      break;
    case 'map': {
      // The body receives the item as `item`; expressions read it by the map's name (`as`).
      const variable = variableName(step.as ?? 'item');
      field('items', needs.expression(step.items));
      field('as', opt(step.as, stringLiteral));
      field('concurrency', opt(step.concurrency, jsonLiteral));
      field(
        'steps',
        body(step.steps, emitter, `{ step, steps, ${variable === 'item' ? 'item' : `item: ${variable}`}, index }`),
      );
      break;
    }
    case 'loop':
      field('while', `({ steps, iteration }) => ${needs.condition(step.while)}`);
      field('maxIterations', opt(step.maxIterations, jsonLiteral));
      field('steps', body(step.steps, emitter, '{ step, steps, iteration }'));
      break;
    case 'approval':
      field('prompt', needs.text(step.prompt));
      field('onTimeout', opt(step.onTimeout, jsonLiteral));
      break;
    case 'spawn':
      field('flow', jsonLiteral(step.flow));
      field(
        'input',
        opt(step.input, (v) => needs.value(v)),
      );
      break;
    case 'sleep':
      field('duration', jsonLiteral(step.duration));
      break;
    case 'fail':
      field('message', needs.text(step.message));
      break;
    default:
      return unreachable(step);
  }
  if (step.name !== undefined && commentedName(step) === undefined) field('name', stringLiteral(step.name));
  field('retry', opt(step.retry, jsonLiteral));
  field('timeout', opt(step.timeout, jsonLiteral));
  const present = fields.filter((entry): entry is [string, string] => entry[1] !== undefined);
  return `{ ${present.map(([key, value]) => `${key}: ${value}`).join(', ')} }`;
}

/** Headers, with literal credentials read from the environment; `print` writes the others. */
export function emitHeaders(
  owner: string,
  headers: Record<string, string>,
  emitter: StepEmitter,
  print: (value: string) => string = (value) => emitter.needs.text(value),
): string {
  const entries = Object.entries(headers).map(
    ([name, value]) => `${propertyKey(name)}: ${emitter.secrets.header(owner, name, value) ?? print(value)}`,
  );
  return `{ ${entries.join(', ')} }`;
}

function unreachable(step: never): never {
  throw new Error(`unknown step type ${(step as { type: string }).type}`);
}
