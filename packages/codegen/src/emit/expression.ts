/**
 * Prints an expression AST (from the engine's parser) as source text, with the fewest
 * parentheses that keep its meaning. Two dialects:
 *
 * - `ts`: TypeScript that behaves like the IR expression. The IR's `==`/`!=` are strict except
 *   that null equals a missing value; JavaScript's are loose. So `x == null` stays (JavaScript
 *   means the same), a comparison with any other literal becomes `===`/`!==` (the same, as the
 *   literal is not null), and anything else calls `eq(a, b)`/`ne(a, b)` from `@weft/engine`.
 *   Helpers are called by name (`len(x)`; the module destructures them from `helpers`), or as
 *   `helpers.default(x)` where the name is a reserved word. Everything else is JavaScript already:
 *   where an IR expression yields a value, JavaScript yields the same one (the IR refuses to
 *   coerce and fails instead, where JavaScript would compute `NaN` or '[object Object]').
 * - `ir`: the expression language itself, in one canonical spelling (what import writes).
 */
import type { ExprNode } from '@weft/engine';
import { isIdentifierName, propertyKey, RESERVED_WORDS, stringLiteral, variableName } from './escape.ts';

export type Dialect = 'ts' | 'ir';

export interface PrintOptions {
  dialect: Dialect;
  /** Called for each helper used, so the module can import it. */
  onHelper?: (name: string) => void;
  /** Called when `eq`/`ne` are needed. */
  onRuntime?: (name: 'eq' | 'ne') => void;
}

/** Can a helper be called by its bare name (destructured from `helpers`)? */
export function isBareHelper(name: string): boolean {
  return !RESERVED_WORDS.has(name);
}

// Binding power, as in JavaScript.
const CONDITIONAL = 2;
const PRECEDENCE: Record<string, number> = {
  '??': 3,
  '||': 3,
  '&&': 4,
  '==': 7,
  '!=': 7,
  '===': 7,
  '!==': 7,
  '<': 8,
  '<=': 8,
  '>': 8,
  '>=': 8,
  '+': 10,
  '-': 10,
  '*': 11,
  '/': 11,
  '%': 11,
  '**': 12,
};
const UNARY = 13;
const POSTFIX = 17;
const PRIMARY = 18;

export function printExpression(node: ExprNode, options: PrintOptions): string {
  return new Printer(options).print(node);
}

/**
 * Printed expression text as the body of an arrow function: one that starts with `{` (an
 * object literal, or a member read of one) would be read as a block, so it gets parentheses.
 */
export function arrowBody(text: string): string {
  return text.startsWith('{') ? `(${text})` : text;
}

class Printer {
  readonly #options: PrintOptions;
  constructor(options: PrintOptions) {
    this.#options = options;
  }

  print(node: ExprNode): string {
    return this.#print(node).text;
  }

  /** The text and its binding power. */
  #print(node: ExprNode): { text: string; precedence: number } {
    switch (node.type) {
      case 'Literal':
        return { text: literal(node.value), precedence: PRIMARY };
      case 'Identifier':
        return { text: this.#name(node.name), precedence: PRIMARY };
      case 'Array':
        return { text: `[${node.elements.map((e) => this.#at(e, CONDITIONAL)).join(', ')}]`, precedence: PRIMARY };
      case 'Object': {
        // `{ item }` when the key is the name read; not when TypeScript spells the variable otherwise.
        const properties = node.properties.map((p) =>
          p.value.type === 'Identifier' && this.#name(p.value.name) === p.key
            ? p.key
            : `${this.#key(p.key)}: ${this.#at(p.value, CONDITIONAL)}`,
        );
        return { text: properties.length === 0 ? '{}' : `{ ${properties.join(', ')} }`, precedence: PRIMARY };
      }
      case 'Member':
        return {
          text: `${this.#object(node.object)}${node.optional ? '?.' : '.'}${node.property}`,
          precedence: POSTFIX,
        };
      case 'Index':
        return {
          text: `${this.#object(node.object)}${node.optional ? '?.' : ''}[${this.#at(node.index, CONDITIONAL)}]`,
          precedence: POSTFIX,
        };
      case 'MethodCall':
        return {
          text: `${this.#object(node.object)}${node.optional ? '?.' : '.'}${node.method}(${this.#args(node.args)})`,
          precedence: POSTFIX,
        };
      case 'Call': {
        this.#options.onHelper?.(node.callee);
        const callee =
          this.#options.dialect === 'ts' && !isBareHelper(node.callee) ? `helpers.${node.callee}` : node.callee;
        return { text: `${callee}(${this.#args(node.args)})`, precedence: POSTFIX };
      }
      case 'Chain':
        return this.#print(node.expression);
      case 'Unary': {
        const argument = node.argument;
        // `- -x` must not print as the decrement `--x`.
        const clash = argument.type === 'Unary' && argument.operator !== '!' && argument.operator !== 'typeof';
        const inner = clash ? `(${this.print(argument)})` : this.#at(argument, UNARY);
        return { text: node.operator === 'typeof' ? `typeof ${inner}` : `${node.operator}${inner}`, precedence: UNARY };
      }
      case 'Binary':
        return this.#binary(node.operator, node.left, node.right);
      case 'Logical': {
        const precedence = PRECEDENCE[node.operator]!;
        const side = (child: ExprNode, min: number) => {
          // JavaScript refuses `a ?? b || c` without parentheses.
          const mixes = child.type === 'Logical' && (child.operator === '??') !== (node.operator === '??');
          return mixes ? `(${this.print(child)})` : this.#at(child, min);
        };
        return {
          text: `${side(node.left, precedence)} ${node.operator} ${side(node.right, precedence + 1)}`,
          precedence,
        };
      }
      case 'Conditional':
        return {
          text: `${this.#at(node.test, CONDITIONAL + 1)} ? ${this.#at(node.consequent, CONDITIONAL)} : ${this.#at(node.alternate, CONDITIONAL)}`,
          precedence: CONDITIONAL,
        };
    }
  }

  #binary(operator: string, left: ExprNode, right: ExprNode): { text: string; precedence: number } {
    if (this.#options.dialect === 'ts' && (operator === '==' || operator === '!=')) {
      const nullSide = isNullLiteral(left) || isNullLiteral(right);
      const literalSide = left.type === 'Literal' || right.type === 'Literal';
      if (!nullSide && literalSide) operator = operator === '==' ? '===' : '!==';
      else if (!nullSide) {
        const name = operator === '==' ? 'eq' : 'ne';
        this.#options.onRuntime?.(name);
        return {
          text: `${name}(${this.#at(left, CONDITIONAL)}, ${this.#at(right, CONDITIONAL)})`,
          precedence: POSTFIX,
        };
      }
    }
    const precedence = PRECEDENCE[operator]!;
    if (operator === '**') {
      // Right-associative, and JavaScript refuses a bare unary on its left.
      return { text: `${this.#at(left, POSTFIX)} ** ${this.#at(right, precedence)}`, precedence };
    }
    return { text: `${this.#at(left, precedence)} ${operator} ${this.#at(right, precedence + 1)}`, precedence };
  }

  /** The object of a member read or call: a chain or a number literal needs parentheses there. */
  #object(node: ExprNode): string {
    if (node.type === 'Chain' || (node.type === 'Literal' && typeof node.value === 'number')) {
      return `(${this.print(node)})`;
    }
    return this.#at(node, POSTFIX);
  }

  /** A name an expression reads: in TypeScript, a map's variable may be spelled `$name` (escape.ts). */
  #name(name: string): string {
    return this.#options.dialect === 'ts' ? variableName(name) : name;
  }

  /** The IR has no computed keys: only TypeScript needs `propertyKey` (which computes `__proto__`). */
  #key(key: string): string {
    if (this.#options.dialect === 'ts') return propertyKey(key);
    return isIdentifierName(key) ? key : stringLiteral(key);
  }

  #args(args: ExprNode[]): string {
    return args.map((arg) => this.#at(arg, CONDITIONAL)).join(', ');
  }

  /** The node's text, parenthesized when it binds looser than `min`. */
  #at(node: ExprNode, min: number): string {
    const { text, precedence } = this.#print(node);
    return precedence < min ? `(${text})` : text;
  }
}

function isNullLiteral(node: ExprNode): boolean {
  return node.type === 'Literal' && node.value === null;
}

function literal(value: string | number | boolean | null): string {
  if (typeof value === 'string') return stringLiteral(value);
  return String(value);
}
