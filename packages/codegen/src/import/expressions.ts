/**
 * TypeScript expressions back into the IR: config values (JSON whose strings are literals,
 * `{{ }}` templates or `=expressions`) and expressions. An expression is spelled out in the
 * expression language, then parsed by the engine's own parser and printed canonically, so
 * whatever the engine refuses is refused here too, at the right line.
 */
import { compileExpression, EXPR_HELPERS, EXPR_LIMITS, EXPR_ROOTS, ExpressionError } from '@weft/engine';
import ts from 'typescript';
import { stringLiteral } from '../emit/escape.ts';
import { printExpression } from '../emit/expression.ts';
import type { Issues } from './issues.ts';
import { readOperatorChain } from './operators.ts';

const ROOTS = new Set<string>(EXPR_ROOTS.filter((root) => root !== 'args'));

export class ExpressionReader {
  readonly #issues: Issues;
  readonly #file: ts.SourceFile;
  /** The map variables in scope, innermost last: the TypeScript name and the flow's name. */
  readonly #variables: { name: string; flowName: string }[] = [];

  constructor(file: ts.SourceFile, issues: Issues) {
    this.#file = file;
    this.#issues = issues;
  }

  /** Inside a map body: TypeScript's `name` reads the map's variable `flowName` (its `as`). */
  bind(name: string, flowName: string): void {
    this.#variables.push({ name, flowName });
  }

  unbind(): void {
    this.#variables.pop();
  }

  /** An `=expression`. */
  expression(node: ts.Expression): string | undefined {
    const raw = this.#raw(node);
    if (raw === undefined) return undefined;
    try {
      const { ast } = compileExpression(raw);
      const canonical = printExpression(ast, { dialect: 'ir' });
      // A long chain that fit the limit in the flow fits it again without the spaces.
      return `=${canonical.length <= EXPR_LIMITS.sourceLength ? canonical : printExpression(ast, { dialect: 'ir', compact: true })}`;
    } catch (error) {
      if (error instanceof ExpressionError) return this.#issues.at(node, error.message);
      throw error;
    }
  }

  /** A string field: a literal, a `{{ }}` template, or an `=expression`. */
  text(node: ts.Expression): string | undefined {
    const inner = unwrap(node);
    if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return literalString(inner.text);
    if (ts.isTaggedTemplateExpression(inner) && ts.isIdentifier(inner.tag) && inner.tag.text === 'template') {
      return this.#template(inner.template, true);
    }
    if (ts.isTemplateExpression(inner)) return this.#template(inner, false);
    return this.expression(node);
  }

  /** Any config value: object and array literals stay structure, strings as in `text`. */
  value(node: ts.Expression): unknown {
    const inner = unwrap(node);
    if (ts.isObjectLiteralExpression(inner)) {
      const entries: [string, unknown][] = [];
      for (const property of inner.properties) {
        if (ts.isShorthandPropertyAssignment(property)) {
          entries.push([property.name.text, this.expression(property.name)]);
          continue;
        }
        const key = this.key(property, 'only plain `key: value` properties can be imported');
        if (key !== undefined) entries.push([key, this.value((property as ts.PropertyAssignment).initializer)]);
      }
      return Object.fromEntries(entries);
    }
    if (ts.isArrayLiteralExpression(inner)) return inner.elements.map((element) => this.value(element));
    // A string is text (`'{{ x }}'` is not a template): `text` keeps it a literal.
    if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return this.text(node);
    const json = jsonScalar(inner);
    if (json.ok) return json.value;
    return this.text(node);
  }

  /** Plain JSON only (meta, schemas, retry policies). */
  json(node: ts.Expression): unknown {
    const inner = unwrap(node);
    if (ts.isObjectLiteralExpression(inner)) {
      const entries: [string, unknown][] = [];
      for (const property of inner.properties) {
        const key = this.key(property, 'only plain `key: value` properties can be imported here');
        if (key !== undefined) entries.push([key, this.json((property as ts.PropertyAssignment).initializer)]);
      }
      return Object.fromEntries(entries);
    }
    if (ts.isArrayLiteralExpression(inner)) return inner.elements.map((element) => this.json(element));
    const json = jsonScalar(inner);
    if (json.ok) return json.value;
    if (isProcessEnv(inner)) return this.#issues.at(inner, secretMessage(inner));
    return this.#issues.at(inner, 'must be a literal value (a string, number, boolean, null, array or object)');
  }

  /**
   * The key of a `key: value` property that holds data, else an issue (`message` when it is not
   * such a property). Objects built from keys use `Object.fromEntries`, which defines own
   * properties, so a `__proto__` key is data there; but in the module, `__proto__: v` sets a
   * prototype, so it must be written `['__proto__']: v` to mean what the import reads.
   */
  key(property: ts.ObjectLiteralElementLike, message: string): string | undefined {
    const key = ts.isPropertyAssignment(property) ? propertyName(property.name) : undefined;
    if (key === undefined) return this.#issues.at(property, message);
    if (key === '__proto__' && !ts.isComputedPropertyName((property as ts.PropertyAssignment).name)) {
      return this.#issues.at(
        property,
        "`__proto__: …` sets the object's prototype in JavaScript; write ['__proto__']: … for a key named __proto__",
      );
    }
    return key;
  }

  /**
   * A template literal as an IR template. `tagged`: written `template\`…\``, whose text reads
   * `\{{` as a literal `{{` (as the IR does); a bare template literal's text is as written.
   */
  #template(template: ts.TemplateExpression | ts.NoSubstitutionTemplateLiteral, tagged: boolean): string | undefined {
    const text = (cooked: string) => (tagged ? cooked.replaceAll('\\{{', '{{') : cooked);
    if (ts.isNoSubstitutionTemplateLiteral(template)) {
      // Text alone: an IR template when it says `{{` (spelled `\{{`), else a plain literal.
      const plain = text(template.text);
      return plain.includes('{{') && !plain.startsWith('=') ? irText(plain, false) : literalString(plain);
    }
    let out = irText(text(template.head.text), true);
    for (const [index, span] of template.templateSpans.entries()) {
      const expression = this.expression(span.expression);
      if (expression === undefined) return undefined;
      const last = index === template.templateSpans.length - 1;
      out += `{{ ${expression.slice(1)} }}${irText(text(span.literal.text), !last)}`;
    }
    if (out.startsWith('='))
      return this.#issues.at(template, "a template cannot start with '=' (the IR would read it as an expression)");
    return out;
  }

  /** The expression in the expression language's syntax, not yet checked by its parser. */
  #raw(node: ts.Expression): string | undefined {
    const fail = (message: string) => this.#issues.at(node, message);
    if (ts.isParenthesizedExpression(node)) return wrap(this.#raw(node.expression));
    if (ts.isAsExpression(node) || ts.isNonNullExpression(node) || ts.isSatisfiesExpression(node))
      return this.#raw(node.expression);
    if (ts.isTypeAssertionExpression(node)) return this.#raw(node.expression);
    if (ts.isIdentifier(node)) {
      const variable = this.#variables.findLast((v) => v.name === node.text);
      if (variable !== undefined) return variable.flowName;
      if (ROOTS.has(node.text)) return node.text;
      if (node.text === 'undefined') return fail("'undefined' is not in the expression language; use null");
      return fail(
        `unknown name '${node.text}': a flow expression can read only ${[...ROOTS].join(', ')}, and a map's item by the name its body gives it ({ item: name })`,
      );
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return stringLiteral(node.text);
    if (ts.isNumericLiteral(node)) return String(Number(node.text));
    switch (node.kind) {
      case ts.SyntaxKind.TrueKeyword:
        return 'true';
      case ts.SyntaxKind.FalseKeyword:
        return 'false';
      case ts.SyntaxKind.NullKeyword:
        return 'null';
    }
    if (ts.isPrefixUnaryExpression(node)) {
      const operator = {
        [ts.SyntaxKind.ExclamationToken]: '!',
        [ts.SyntaxKind.MinusToken]: '-',
        [ts.SyntaxKind.PlusToken]: '+',
      }[node.operator as number];
      if (operator === undefined)
        return fail(`operator '${ts.tokenToString(node.operator)}' is not in the expression language`);
      return join(operator, this.#raw(node.operand));
    }
    if (ts.isTypeOfExpression(node)) return join('typeof ', this.#raw(node.expression));
    if (ts.isBinaryExpression(node)) {
      const unknown = (token: ts.Node) =>
        this.#issues.at(token, `operator '${token.getText(this.#file)}' is not in the expression language`);
      return readOperatorChain(node, (operand) => this.#raw(operand), unknown);
    }
    if (ts.isConditionalExpression(node)) {
      const parts = [this.#raw(node.condition), this.#raw(node.whenTrue), this.#raw(node.whenFalse)];
      return parts.includes(undefined) ? undefined : `${parts[0]} ? ${parts[1]} : ${parts[2]}`;
    }
    if (ts.isPropertyAccessExpression(node)) {
      if (isProcessEnv(node)) return fail(secretMessage(node));
      if (ts.isIdentifier(node.expression) && node.expression.text === 'helpers')
        return fail(`helpers.${node.name.text} must be called`);
      return join(this.#raw(node.expression), `${node.questionDotToken ? '?.' : '.'}${node.name.text}`);
    }
    if (ts.isElementAccessExpression(node)) {
      const object = this.#raw(node.expression);
      const index = this.#raw(node.argumentExpression);
      return object === undefined || index === undefined
        ? undefined
        : `${object}${node.questionDotToken ? '?.' : ''}[${index}]`;
    }
    if (ts.isCallExpression(node)) return this.#call(node);
    if (ts.isArrayLiteralExpression(node)) {
      const elements = node.elements.map((element) =>
        ts.isSpreadElement(element) ? fail('spread (...) is not in the expression language') : this.#raw(element),
      );
      return elements.includes(undefined) ? undefined : `[${elements.join(', ')}]`;
    }
    if (ts.isObjectLiteralExpression(node)) {
      const properties = node.properties.map((property) => {
        if (ts.isShorthandPropertyAssignment(property))
          return join(`${property.name.text}: `, this.#raw(property.name));
        const key = ts.isPropertyAssignment(property) ? propertyName(property.name) : undefined;
        if (key === undefined || !ts.isPropertyAssignment(property))
          return this.#issues.at(property, 'only plain `key: value` properties are in the expression language');
        return join(`${stringLiteral(key)}: `, this.#raw(property.initializer));
      });
      return properties.includes(undefined) ? undefined : `{ ${properties.join(', ')} }`;
    }
    if (ts.isTaggedTemplateExpression(node) || ts.isTemplateExpression(node))
      return fail('a template can only be a whole config value, not part of an expression');
    if (ts.isAwaitExpression(node)) return fail('await is only for step calls: await step.<type>(…)');
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node))
      return fail('a function is not a value a flow can hold');
    return fail(`${ts.SyntaxKind[node.kind]} is not in the expression language`);
  }

  #call(node: ts.CallExpression): string | undefined {
    const fail = (message: string) => this.#issues.at(node, message);
    const args = node.arguments.map((arg) =>
      ts.isSpreadElement(arg) ? fail('spread (...) is not in the expression language') : this.#raw(arg),
    );
    if (args.includes(undefined)) return undefined;
    const callee = node.expression;
    if (ts.isIdentifier(callee)) {
      const name = callee.text;
      if ((name === 'eq' || name === 'ne') && args.length === 2)
        return `(${args[0]} ${name === 'eq' ? '==' : '!='} ${args[1]})`;
      if (EXPR_HELPERS.has(name)) return `${name}(${args.join(', ')})`;
      return fail(`'${name}' is not a helper a flow expression can call`);
    }
    if (ts.isPropertyAccessExpression(callee)) {
      const owner = callee.expression;
      if (ts.isIdentifier(owner) && owner.text === 'helpers') {
        if (!EXPR_HELPERS.has(callee.name.text)) return fail(`'${callee.name.text}' is not a helper`);
        return `${callee.name.text}(${args.join(', ')})`;
      }
      if (ts.isIdentifier(owner) && (owner.text === 'Date' || owner.text === 'Math') && !ROOTS.has(owner.text)) {
        return fail(
          `${owner.text}.${callee.name.text}() is not available in a flow expression: expressions are deterministic and read only ${[...ROOTS].join(', ')}`,
        );
      }
      if (ts.isIdentifier(owner) && owner.text === 'step')
        return fail('a step call must be a statement of its own: await step.<type>(…)');
      const object = this.#raw(owner);
      if (object === undefined) return undefined;
      return `${object}${callee.questionDotToken ? '?.' : '.'}${callee.name.text}(${args.join(', ')})`;
    }
    return fail('only helpers and string/array methods can be called in a flow expression');
  }
}

/** A string literal in a config: as is, unless the IR would read it as an expression or template. */
function literalString(text: string): string {
  return text.startsWith('=') || text.includes('{{') ? `=${stringLiteral(text)}` : text;
}

/**
 * Literal text as an IR template spells it. The IR reads the first `{{` it meets, and `\{{` as
 * a literal `{{`: a run of braces is spelled `\{{` per pair with an odd one in front (`{\{{`),
 * and text that ends in `\` or a lone `{` right before an interpolation (which would escape it
 * or run into it) puts that end in an interpolation of its own, as a string: `{{ '{' }}`.
 */
function irText(text: string, beforeInterpolation: boolean): string {
  const spell = (literal: string) =>
    literal.replace(/\{{2,}/g, (run) => `${run.length % 2 === 1 ? '{' : ''}${'\\{{'.repeat(run.length >> 1)}`);
  const end = beforeInterpolation && /(?:\\|(?:^|[^{])\{)$/.test(text) ? /[\\{]+$/.exec(text)![0] : '';
  return end === '' ? spell(text) : `${spell(text.slice(0, -end.length))}{{ ${stringLiteral(end)} }}`;
}

export function unwrap(node: ts.Expression): ts.Expression {
  let current = node;
  while (
    ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current) ||
    ts.isSatisfiesExpression(current) ||
    ts.isNonNullExpression(current)
  )
    current = current.expression;
  return current;
}

/** A property's name as written: bare, quoted, a number, or computed from a string (`['__proto__']`). */
export function propertyName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    const expression = unwrap(name.expression);
    if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return expression.text;
  }
  return undefined;
}

function jsonScalar(node: ts.Expression): { ok: true; value: unknown } | { ok: false } {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return { ok: true, value: node.text };
  if (ts.isNumericLiteral(node)) return { ok: true, value: Number(node.text) };
  if (
    ts.isPrefixUnaryExpression(node) &&
    node.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(node.operand)
  )
    return { ok: true, value: -Number(node.operand.text) };
  if (node.kind === ts.SyntaxKind.TrueKeyword) return { ok: true, value: true };
  if (node.kind === ts.SyntaxKind.FalseKeyword) return { ok: true, value: false };
  if (node.kind === ts.SyntaxKind.NullKeyword) return { ok: true, value: null };
  return { ok: false };
}

function isProcessEnv(node: ts.Node): boolean {
  let current = node;
  if (ts.isBinaryExpression(current)) current = current.left;
  return (
    ts.isPropertyAccessExpression(current) &&
    ts.isPropertyAccessExpression(current.expression) &&
    ts.isIdentifier(current.expression.expression) &&
    current.expression.expression.text === 'process' &&
    current.expression.name.text === 'env'
  );
}

function secretMessage(node: ts.Node): string {
  return `${node.getText()}: a flow cannot read the environment (secrets stay out of flows); pass the value in the run input, e.g. template\`Bearer \${input.token}\``;
}

function wrap(text: string | undefined): string | undefined {
  return text === undefined ? undefined : `(${text})`;
}

function join(a: string | undefined, b: string | undefined): string | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}
