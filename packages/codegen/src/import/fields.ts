/**
 * What import reads where. The kind of value each step config field holds, the positional
 * forms and a body's extra names are the step manifests' (`@weft/engine`); this file keeps only
 * what is about code: the names a nested body or a condition may destructure.
 */
import type { BodyScope } from '@weft/engine';

/** What every nested body receives. */
const BODY_NAMES = ['step', 'steps', 'input'];

/** The names a body may destructure: what every body gets plus its step type's own (a map's item). */
export function bodyParamNames(body: BodyScope | undefined): ReadonlySet<string> {
  return new Set([...BODY_NAMES, ...(body?.names ?? []).map((entry) => entry.name)]);
}

/** The names a condition function may destructure: a loop's `while` also sees its body's names. */
export function conditionParamNames(body: BodyScope | undefined): ReadonlySet<string> {
  return new Set(['steps', ...(body?.names ?? []).map((entry) => entry.name), 'input']);
}

/**
 * Names a map body cannot bind its item to: the body's other parameters, and names whose
 * meaning import assumes (`eq(a, b)` is `==`, `template\`…\`` a template, `helpers.x` a
 * helper). Bound to the item, they would mean something else in the module than in the flow.
 */
export const UNBINDABLE = new Set([
  'step',
  'steps',
  'input',
  'index',
  'iteration',
  'eq',
  'ne',
  'helpers',
  'template',
  'process',
]);
