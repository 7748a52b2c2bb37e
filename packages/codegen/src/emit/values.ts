/**
 * IR config values as TypeScript. A config string is an expression (`=…`), a template (holds
 * `{{ }}`) or a literal; objects and arrays hold such strings at any depth. Expressions print
 * as TypeScript, templates as `template\`…\`` (which renders values as a `{{ }}` template does),
 * literals as string literals.
 */
import { compileExpression, compileTemplate, isExpression, isTemplate } from '@weft/engine';
import { propertyKey, stringLiteral, templateText } from './escape.ts';
import { arrowBody, printExpression } from './expression.ts';

/** What a module needs from `@weft/engine` besides `defineFlow`, collected while printing. */
export class ModuleNeeds {
  readonly helpers = new Set<string>();
  readonly runtime = new Set<'eq' | 'ne' | 'template'>();

  expression(source: string): string {
    return printExpression(compileExpression(source).ast, {
      dialect: 'ts',
      onHelper: (name) => this.helpers.add(name),
      onRuntime: (name) => this.runtime.add(name),
    });
  }

  /** An expression as the body of an arrow function (a branch or loop condition). */
  condition(source: string): string {
    return arrowBody(this.expression(source));
  }

  /** A string config field: literal, template or expression. */
  text(value: string): string {
    if (isExpression(value)) return this.expression(value);
    if (!isTemplate(value)) return stringLiteral(value);
    this.runtime.add('template');
    let out = '';
    for (const part of compileTemplate(value).parts) {
      // A literal `{{` in a template is written `\{{` in the IR: keep it so on the way back.
      if (typeof part === 'string') out += templateText(part, { literalBraces: true });
      else out += `\${${this.expression(part.source)}}`;
    }
    return `template\`${out}\``;
  }

  /** Any config value: JSON whose strings are literals, templates or expressions. */
  value(value: unknown): string {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return `[${value.map((v) => this.value(v)).join(', ')}]`;
    if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value).map(([key, v]) => `${propertyKey(key)}: ${this.value(v)}`);
      return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
    }
    return scalarLiteral(value);
  }
}

/** Plain JSON (no expressions) as a TypeScript literal. */
export function jsonLiteral(value: unknown): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (Array.isArray(value)) return `[${value.map(jsonLiteral).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([key, v]) => `${propertyKey(key)}: ${jsonLiteral(v)}`);
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
  }
  return scalarLiteral(value);
}

/** A number, boolean or null as JSON writes it (a value JSON cannot hold is null, as there). */
function scalarLiteral(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return typeof value === 'boolean' ? String(value) : 'null';
}
