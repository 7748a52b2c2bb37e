/**
 * Statements back into IR steps. A body is a list of `await step.<type>('id', { … })`
 * statements, the last of which may be returned; its config is read field by field with the
 * kind of value the IR holds there (the step manifest's field kinds). Anything the IR cannot express is an error at
 * its line: control flow written in JavaScript, a dynamic id, a step call inside try/catch.
 */
import {
  type BodyScope,
  EXPR_HELPERS,
  type FieldSpec,
  fieldSpec,
  isStepType,
  manifestOf,
  STEP_TYPES,
  type StepType,
} from '@weft/engine';
import ts from 'typescript';
import { codeSourceFromTypeScript } from '../emit/code-params.ts';
import { type ExpressionReader, propertyName, unwrap } from './expressions.ts';
import { bodyParamNames, conditionParamNames, UNBINDABLE } from './fields.ts';
import type { Issues } from './issues.ts';

export interface StepReaderContext {
  file: ts.SourceFile;
  issues: Issues;
  expressions: ExpressionReader;
  /** Module-level functions by name (code step sources). */
  functions: Map<string, ts.FunctionDeclaration>;
  usedFunctions: Set<string>;
  /** Where each step id was written, to pin validation errors. */
  stepNodes: Map<string, ts.Node>;
  /** Every name the module declares at its top level (imports, functions, helper names). */
  moduleNames: ReadonlySet<string>;
}

export class StepReader {
  readonly #ctx: StepReaderContext;
  constructor(ctx: StepReaderContext) {
    this.#ctx = ctx;
  }

  /** The steps of a block; at the top level, a final `return <value>` is the flow's output. */
  block(statements: readonly ts.Statement[], top: boolean): { steps: unknown[]; output?: unknown; hasOutput: boolean } {
    const { issues } = this.#ctx;
    const steps: unknown[] = [];
    let output: unknown;
    let hasOutput = false;
    statements.forEach((statement, index) => {
      const last = index === statements.length - 1;
      if (ts.isExpressionStatement(statement)) {
        const call = stepCall(statement.expression);
        if (call && ts.isAwaitExpression(unwrap(statement.expression))) steps.push(this.step(call, statement));
        else if (call) issues.at(statement, 'await the step: await step.<type>(…)');
        else issues.at(statement, 'only step calls (await step.<type>(…)) and a final return can be imported');
      } else if (ts.isReturnStatement(statement)) {
        if (!last) issues.at(statement, 'a return must be the last statement');
        if (statement.expression === undefined) return;
        const call = stepCall(statement.expression);
        if (call) steps.push(this.step(call, statement));
        else if (top) {
          output = this.#ctx.expressions.value(statement.expression);
          hasOutput = true;
        } else {
          issues.at(
            statement,
            "a nested body can only return its last step: in the IR a container's output is its last step's output",
          );
        }
      } else if (ts.isTryStatement(statement)) {
        issues.at(
          statement,
          'try/catch cannot be imported: the IR cannot catch a step failure (use retry on the step)',
        );
      } else if (ts.isIfStatement(statement) || ts.isSwitchStatement(statement)) {
        issues.at(
          statement,
          "JavaScript branching cannot be imported: use step.branch('id', { cases: [{ when, steps }] })",
        );
      } else if (isLoop(statement)) {
        issues.at(
          statement,
          "JavaScript loops cannot be imported: use step.loop('id', { while, steps }) or step.map('id', { items, steps })",
        );
      } else if (ts.isVariableStatement(statement)) {
        issues.at(statement, 'variables cannot be imported: read an earlier step as steps.<id>.output');
      } else if (!ts.isEmptyStatement(statement)) {
        issues.at(statement, 'only step calls (await step.<type>(…)) and a final return can be imported');
      }
    });
    return { steps, output, hasOutput };
  }

  step(call: ts.CallExpression, statement: ts.Statement): unknown {
    const { issues } = this.#ctx;
    const method = (call.expression as ts.PropertyAccessExpression).name.text;
    if (!isStepType(method)) {
      return issues.at(call.expression, `step.${method} is not a step type; the types are ${STEP_TYPES.join(', ')}`);
    }
    const type = method;
    const manifest = manifestOf(type);
    const [idNode, configNode, third] = call.arguments;
    if (idNode === undefined || !(ts.isStringLiteral(idNode) || ts.isNoSubstitutionTemplateLiteral(idNode))) {
      return issues.at(
        idNode ?? call,
        'the step id must be a string literal: ids are fixed in the IR (and in the journal)',
      );
    }
    const id = idNode.text;
    if (this.#ctx.stepNodes.has(id)) return issues.at(idNode, `step id '${id}' is used twice`);
    this.#ctx.stepNodes.set(id, idNode);
    const step: Record<string, unknown> = { id, type };
    const name = stepName(statement, this.#ctx.file);
    if (name !== undefined) step.name = name;
    if (configNode === undefined) return issues.at(call, `step.${type}('${id}', …) needs its config`);
    const config = unwrap(configNode);
    if (ts.isObjectLiteralExpression(config)) {
      if (third !== undefined) issues.at(third, 'unexpected argument after the config object');
      // The body is read with the item's name, wherever its renaming field (a map's `as`) is
      // written (a bad one is reported below).
      const renamedBy = manifest.body?.renamedBy;
      const as = config.properties.find(
        (property) =>
          renamedBy !== undefined && ts.isPropertyAssignment(property) && propertyName(property.name) === renamedBy,
      ) as ts.PropertyAssignment | undefined;
      const asText = as === undefined ? undefined : unwrap(as.initializer);
      const itemName = asText !== undefined && ts.isStringLiteral(asText) ? asText.text : manifest.body?.names[0]?.name;
      for (const property of config.properties) {
        const key = ts.isPropertyAssignment(property) ? propertyName(property.name) : undefined;
        if (key === undefined || !ts.isPropertyAssignment(property)) {
          issues.at(property, 'only plain `key: value` properties can be imported');
          continue;
        }
        // Own fields only: `constructor` is no field (and no kind) of any step.
        const spec = fieldSpec(type, key);
        if (spec === undefined) {
          issues.at(property.name, `step.${type} has no field '${key}'`);
          continue;
        }
        const value =
          key === 'name' ? this.#name(property.initializer) : this.#field(spec, property.initializer, type, itemName);
        if (value !== undefined) step[key] = value;
      }
    } else {
      const [first, second] = manifest.positional ?? [];
      if (first === undefined)
        return issues.at(configNode, `step.${type} takes a config object: step.${type}('${id}', { … })`);
      step[first] = this.#field(fieldSpec(type, first)!, configNode, type);
      if (third !== undefined && second !== undefined)
        step[second] = this.#field(fieldSpec(type, second)!, third, type);
    }
    return step;
  }

  /** A step's `name`: a string literal (code-first writes it as the comment above the step). */
  #name(node: ts.Expression): string | undefined {
    const inner = unwrap(node);
    return ts.isStringLiteral(inner) ? inner.text : this.#ctx.issues.at(node, 'a step name must be a string literal');
  }

  /** One config value, read by its manifest kind. `itemName`: a map's `as` (its item's name in the flow), for its body. */
  #field(spec: FieldSpec, node: ts.Expression, type: StepType, itemName?: string): unknown {
    const { expressions, issues } = this.#ctx;
    const body = manifestOf(type).body;
    switch (spec.kind) {
      case 'literal':
      case 'duration':
      case 'model':
      case 'json-schema':
        return expressions.json(node);
      case 'template':
        return expressions.text(node);
      case 'expression':
        return expressions.expression(node);
      case 'args':
      case 'value':
        return expressions.value(node);
      case 'template-record': {
        const inner = unwrap(node);
        if (!ts.isObjectLiteralExpression(inner)) return issues.at(node, 'headers must be an object literal');
        const headers: [string, unknown][] = [];
        for (const property of inner.properties) {
          const key = expressions.key(property, 'only plain `key: value` headers');
          if (key !== undefined) headers.push([key, expressions.text((property as ts.PropertyAssignment).initializer)]);
        }
        return Object.fromEntries(headers);
      }
      case 'code':
        return this.#codeSource(node);
      case 'steps':
        return this.#body(node, body, itemName);
      case 'named-steps': {
        const inner = unwrap(node);
        if (!ts.isObjectLiteralExpression(inner))
          return issues.at(node, 'branches must be an object literal of functions');
        const branches: [string, unknown][] = [];
        for (const property of inner.properties) {
          const key = expressions.key(property, 'each branch is `name: async ({ step }) => { … }`');
          if (key !== undefined)
            branches.push([key, this.#body((property as ts.PropertyAssignment).initializer, undefined)]);
        }
        return Object.fromEntries(branches);
      }
      case 'cases': {
        const inner = unwrap(node);
        if (!ts.isArrayLiteralExpression(inner)) return issues.at(node, 'cases must be an array literal');
        return inner.elements.map((element) => this.#case(element));
      }
      case 'condition':
        return this.#condition(node, conditionParamNames(body));
    }
  }

  #case(node: ts.Expression): unknown {
    const { issues } = this.#ctx;
    const inner = unwrap(node);
    if (!ts.isObjectLiteralExpression(inner))
      return issues.at(node, 'a case is { when: () => condition, steps: async ({ step }) => { … } }');
    const out: Record<string, unknown> = {};
    for (const property of inner.properties) {
      const key = ts.isPropertyAssignment(property) ? propertyName(property.name) : undefined;
      if (key === 'when' && ts.isPropertyAssignment(property))
        out.when = this.#condition(property.initializer, conditionParamNames(undefined));
      else if (key === 'steps' && ts.isPropertyAssignment(property))
        out.steps = this.#body(property.initializer, undefined);
      else issues.at(property, 'a case has only `when` and `steps`');
    }
    return out;
  }

  /** `() => expr` / `({ steps, iteration }) => expr`: the IR expression. */
  #condition(node: ts.Expression, names: ReadonlySet<string>): string | undefined {
    const { issues, expressions } = this.#ctx;
    const fn = unwrap(node);
    if (!ts.isArrowFunction(fn)) return issues.at(node, 'a condition is a function: () => condition');
    if (!this.#params(fn, names)) return undefined;
    let body: ts.Node = fn.body;
    if (ts.isBlock(body)) {
      const only = body.statements[0];
      if (body.statements.length !== 1 || !only || !ts.isReturnStatement(only) || !only.expression)
        return issues.at(body, 'a condition must be a single expression: () => condition');
      body = only.expression;
    }
    return expressions.expression(body as ts.Expression);
  }

  /**
   * `async ({ step, steps }) => { … }`: a nested step list, receiving what every body does plus
   * its type's own names (`scope`). A map's body receives the item as `item` and may name it
   * (`{ item: ticket }`): inside, that name reads the map's variable, whose name in the flow is
   * `itemName` (the map's `as`).
   */
  #body(node: ts.Expression, scope: BodyScope | undefined, itemName?: string): unknown[] | undefined {
    const { issues, expressions } = this.#ctx;
    const fn = unwrap(node);
    if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn))
      return issues.at(node, 'a nested step list is a function: async ({ step, steps }) => { … }');
    const renamable = scope?.renamedBy !== undefined;
    if (!this.#params(fn, bodyParamNames(scope), renamable)) return undefined;
    const variable = renamable ? itemBinding(fn) : undefined;
    if (variable !== undefined) expressions.bind(variable, itemName ?? 'item');
    try {
      if (ts.isBlock(fn.body)) return this.block(fn.body.statements, false).steps;
      const call = stepCall(fn.body);
      if (call) return [this.step(call, fn.body as unknown as ts.Statement)];
      return issues.at(
        fn.body,
        "a nested body can only return its last step: in the IR a container's output is its last step's output",
      );
    } finally {
      if (variable !== undefined) expressions.unbind();
    }
  }

  /**
   * At most one destructured parameter, binding only names the runtime passes, unrenamed — but
   * for a map's `item` (`renameItem`), which may be bound to a name that shadows nothing.
   */
  #params(fn: ts.SignatureDeclarationBase, names: ReadonlySet<string>, renameItem = false): boolean {
    const { issues } = this.#ctx;
    if (fn.parameters.length === 0) return true;
    const [param, extra] = fn.parameters;
    if (extra || !param || !ts.isObjectBindingPattern(param.name)) {
      issues.at(param ?? fn, `destructure what you need: ({ ${[...names].join(', ')} }) => …`);
      return false;
    }
    let ok = true;
    for (const element of param.name.elements) {
      const name = ts.isIdentifier(element.name) ? element.name.text : undefined;
      if (renameItem && element.propertyName && propertyName(element.propertyName) === 'item' && name !== undefined) {
        if (element.initializer || element.dotDotDotToken || !this.#bindable(name)) {
          issues.at(element, `the item cannot be named '${name}' here: the body or the module uses that name`);
          ok = false;
        }
        continue;
      }
      if (
        element.propertyName ||
        element.initializer ||
        element.dotDotDotToken ||
        name === undefined ||
        !names.has(name)
      ) {
        issues.at(element, `this function receives only ${[...names].join(', ')}, by those names`);
        ok = false;
      }
    }
    return ok;
  }

  /** Can a map body bind its item to `name` without hiding a name the body or module means? */
  #bindable(name: string): boolean {
    return !UNBINDABLE.has(name) && !EXPR_HELPERS.has(name) && !this.#ctx.moduleNames.has(name);
  }

  #codeSource(node: ts.Expression): string | undefined {
    const { issues, functions, usedFunctions, file } = this.#ctx;
    const inner = unwrap(node);
    if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return inner.text;
    let fn: ts.FunctionLikeDeclaration | undefined;
    if (ts.isIdentifier(inner)) {
      fn = functions.get(inner.text);
      if (fn === undefined) return issues.at(inner, `'${inner.text}' is not a function declared in this module`);
      usedFunctions.add(inner.text);
    } else if (ts.isFunctionExpression(inner) || ts.isArrowFunction(inner)) fn = inner;
    else return issues.at(node, 'a code source is a function (its body runs in the sandbox) or a string');
    const names = fn.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ''));
    if (names.some((name, index) => name !== ['args', 'input', 'steps'][index])) {
      return issues.at(fn, 'a code function takes (args, input, steps), by those names: the sandbox passes them so');
    }
    if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) || fn.asteriskToken)
      return issues.at(fn, 'a code function cannot be async or a generator: the sandbox runs it synchronously');
    const source = codeSourceFromTypeScript(fn.getText(file));
    return source ?? issues.at(fn, 'a code function needs a body');
  }
}

/** The name a map body binds its item to (`{ item }` or `{ item: ticket }`), if it takes the item. */
function itemBinding(fn: ts.SignatureDeclarationBase): string | undefined {
  const param = fn.parameters[0];
  if (param === undefined || !ts.isObjectBindingPattern(param.name)) return undefined;
  for (const element of param.name.elements) {
    const key = element.propertyName === undefined ? element.name : element.propertyName;
    if ((ts.isIdentifier(key) || ts.isStringLiteral(key)) && key.text === 'item' && ts.isIdentifier(element.name))
      return element.name.text;
  }
  return undefined;
}

/** `step.x(…)` (optionally awaited), else undefined. */
export function stepCall(expression: ts.Expression): ts.CallExpression | undefined {
  let node = unwrap(expression);
  if (ts.isAwaitExpression(node)) node = unwrap(node.expression);
  if (!ts.isCallExpression(node)) return undefined;
  const callee = node.expression;
  return ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'step'
    ? node
    : undefined;
}

function isLoop(statement: ts.Statement): boolean {
  return (
    ts.isForStatement(statement) ||
    ts.isForOfStatement(statement) ||
    ts.isForInStatement(statement) ||
    ts.isWhileStatement(statement) ||
    ts.isDoStatement(statement)
  );
}

/** The `// comment` lines right above a step statement: its name. */
function stepName(statement: ts.Node, file: ts.SourceFile): string | undefined {
  const ranges = ts.getLeadingCommentRanges(file.text, statement.pos) ?? [];
  const lines: string[] = [];
  let end = statement.getStart(file);
  for (let i = ranges.length - 1; i >= 0; i--) {
    const range = ranges[i]!;
    // Only comments directly above (no blank line between) name the step.
    if (range.kind !== ts.SyntaxKind.SingleLineCommentTrivia || /\n[ \t]*\n/.test(file.text.slice(range.end, end)))
      break;
    lines.unshift(file.text.slice(range.pos + 2, range.end).replace(/^ /, ''));
    end = range.pos;
  }
  return lines.length === 0 ? undefined : lines.join('\n');
}
