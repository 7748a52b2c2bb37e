/**
 * What an exported module means as code, read with the TypeScript compiler, for tests that
 * check that text from a flow (names, descriptions, literals, keys) only ever lands inside
 * string literal, template literal and comment tokens.
 *
 * `codeShape` prints the syntax tree with the data abstracted away: every string and template
 * text is `STR`, every property name of an object literal, interface or type literal is `KEY`
 * (a `name: '…'` property, a step's name written as data, is left out: it is in a comment
 * otherwise), and parentheses go (the tree says how things group). Two modules with the same
 * shape run the same code; they differ only in data. Identifiers (other than property names),
 * keywords, operators, calls and statements all stay in the shape, so text that escaped into
 * code shows up as a difference.
 */
import ts from 'typescript';

export interface ParsedModule {
  file: ts.SourceFile;
  /** The parser's errors: a module that does not parse has no meaning to compare. */
  diagnostics: string[];
}

export function parseModule(text: string, fileName = 'module.ts'): ParsedModule {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const raw = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  return { file, diagnostics: raw.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')) };
}

/**
 * Object literal properties written `__proto__: …` or `'__proto__': …` (not computed): in
 * JavaScript they set the object's prototype instead of holding data.
 */
export function prototypeSetters(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAssignment(node) &&
      ts.isObjectLiteralExpression(node.parent) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      node.name.text === '__proto__'
    ) {
      found.push(node.getText(file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every call whose callee is written `a.b` or `a`, e.g. `process.exit`, as that text. */
export function calledNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) names.add(node.expression.getText(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** Identifiers outside property-name positions: the names the code reads, calls or declares. */
export function codeIdentifiers(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && !isPropertyName(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** The module's syntax tree as text, data abstracted (see the file comment). */
export function codeShape(file: ts.SourceFile): string {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    const data = dataToken(node);
    if (data !== undefined) {
      if (data !== '') out.push(data);
      return;
    }
    if (ts.isShorthandPropertyAssignment(node)) {
      // `{ input }` is `{ input: input }`: a key (data) and a read of `input` (code).
      out.push('(PropertyAssignment KEY', `(Identifier ${node.name.text})`, ')');
      return;
    }
    if (ts.isParenthesizedExpression(node) || ts.isParenthesizedTypeNode(node)) {
      // The tree already says how things group: parentheses are how the text says it (the
      // formatter drops the ones it does not need).
      ts.forEachChild(node, visit);
      return;
    }
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      out.push(`(Identifier ${node.text})`);
      return;
    }
    out.push(`(${ts.SyntaxKind[node.kind]}`);
    // Tokens that are not child nodes (children, modifiers and `?.` tokens included, are visited).
    for (const field of ['operator', 'keywordToken', 'token'] as const) {
      const kind = (node as unknown as Record<string, unknown>)[field];
      if (typeof kind === 'number') out.push(ts.SyntaxKind[kind]!);
    }
    if (ts.isVariableDeclarationList(node)) out.push(String(node.flags & ts.NodeFlags.BlockScoped));
    ts.forEachChild(node, visit);
    out.push(')');
  };
  visit(file);
  return out.join(' ');
}

/** `STR` for string and template text, `KEY` for a property name; undefined for code. */
function dataToken(node: ts.Node): string | undefined {
  if (
    ts.isStringLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTemplateHead(node) ||
    ts.isTemplateMiddle(node) ||
    ts.isTemplateTail(node)
  ) {
    return isPropertyName(node) ? 'KEY' : 'STR';
  }
  if (ts.isNumericLiteral(node) && isPropertyName(node)) return 'KEY';
  if (ts.isComputedPropertyName(node) && isLiteralText(node.expression)) return 'KEY';
  if (ts.isIdentifier(node) && isPropertyName(node)) return 'KEY';
  // A step name is data whichever way it is written: as a comment, or as `name: '…'` in the config.
  if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'name') {
    if (isLiteralText(node.initializer)) return '';
  }
  return undefined;
}

function isLiteralText(node: ts.Node): boolean {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

/** Is `node` the name of a property in an object literal, interface or type literal (not shorthand)? */
function isPropertyName(node: ts.Node): boolean {
  const parent = node.parent;
  if (parent === undefined) return false;
  return (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent)) && parent.name === node;
}
