/**
 * `importFlow(source)`: a TypeScript module in the `weft` export shape back into IR v1. Parse
 * only (no type-check), with the TypeScript compiler. The module may hold imports, types,
 * `const { … } = helpers`, code step functions, and one `export default defineFlow(meta, fn)`;
 * anything else is an error at its line. All or nothing: with any error there is no flow.
 */
import { type Flow, type ValidateOptions, validateFlow } from '@weft/engine';
import ts from 'typescript';
import { ExpressionReader, propertyName, unwrap } from './expressions.ts';
import { type ImportIssue, Issues } from './issues.ts';
import { StepReader, type StepReaderContext } from './steps.ts';

export type { ImportIssue } from './issues.ts';
export type ImportResult = { ok: true; flow: Flow } | { ok: false; errors: ImportIssue[] };

const META_FIELDS = new Set(['id', 'name', 'description', 'version', 'input', 'tools']);
const FLOW_NAMES = new Set(['input', 'step', 'steps']);

/** The parsed module; undefined when the parser overflows its stack (`f(f(f(…)))` thousands deep). */
function parse(fileName: string, source: string): ts.SourceFile | undefined {
  try {
    return ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** `options` is what `validateFlow` is given (host tools, other flows): the result is a valid flow. */
export function importFlow(source: string, fileName = 'flow.ts', options: ValidateOptions = {}): ImportResult {
  const file = parse(fileName, source);
  if (file === undefined) {
    const message = "the module is nested too deeply for TypeScript's parser (it ran out of stack)";
    return { ok: false, errors: [{ line: 1, column: 1, message }] };
  }
  const issues = new Issues(file);
  for (const diagnostic of (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics) {
    issues.atPosition(diagnostic.start ?? 0, ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }
  if (issues.list.length > 0) return { ok: false, errors: issues.list };

  const ctx: StepReaderContext = {
    file,
    issues,
    expressions: new ExpressionReader(file, issues),
    functions: new Map(),
    usedFunctions: new Set(),
    stepNodes: new Map(),
    moduleNames: moduleNames(file),
  };
  let flowCall: ts.CallExpression | undefined;
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) ctx.functions.set(statement.name.text, statement);
  }
  for (const statement of file.statements) {
    if (ts.isExportAssignment(statement) && !statement.isExportEquals) {
      const call = unwrap(statement.expression);
      if (!isDefineFlow(call))
        issues.at(statement, 'export default must be defineFlow(meta, async ({ input, step, steps }) => { … })');
      else if (flowCall) issues.at(statement, 'a module holds one flow');
      else flowCall = call;
    } else if (!isAllowedAtModuleLevel(statement)) {
      issues.at(
        statement,
        'only imports, types, `const { … } = helpers`, code step functions and export default defineFlow(…) can be imported',
      );
    }
  }
  if (!flowCall) {
    if (issues.list.length === 0)
      issues.atPosition(
        0,
        'no flow: the module needs export default defineFlow(meta, async ({ input, step, steps }) => { … })',
      );
    return { ok: false, errors: issues.list };
  }

  const doc = readFlow(flowCall, ctx);
  for (const [name, fn] of ctx.functions) {
    if (!ctx.usedFunctions.has(name))
      issues.at(fn, `function '${name}' is not a code step's source; a flow cannot hold other module code`);
  }
  if (issues.list.length > 0 || doc === undefined) return { ok: false, errors: sorted(issues.list) };

  const result = validateFlow(doc, options);
  if (!result.ok) {
    for (const error of result.errors) {
      const node = (error.stepId == null ? undefined : ctx.stepNodes.get(error.stepId)) ?? flowCall;
      issues.at(node, `${error.path ? `${error.path}: ` : ''}${error.message}`);
    }
    return { ok: false, errors: sorted(issues.list) };
  }
  return { ok: true, flow: result.flow };
}

function readFlow(call: ts.CallExpression, ctx: StepReaderContext): Record<string, unknown> | undefined {
  const { issues, expressions } = ctx;
  const [metaNode, fnNode, extra] = call.arguments;
  if (extra) issues.at(extra, 'defineFlow takes (meta, fn)');
  const meta = metaNode === undefined ? undefined : unwrap(metaNode);
  if (meta === undefined || !ts.isObjectLiteralExpression(meta) || fnNode === undefined) {
    return issues.at(
      call,
      "defineFlow needs its meta first: defineFlow({ id: 'my-flow', name: 'My flow' }, async ({ input, step, steps }) => { … })",
    );
  }
  const doc: Record<string, unknown> = { irVersion: 1 };
  for (const property of meta.properties) {
    const key = ts.isPropertyAssignment(property) ? propertyName(property.name) : undefined;
    if (key === undefined || !ts.isPropertyAssignment(property) || !META_FIELDS.has(key)) {
      issues.at(property, `the flow meta holds only ${[...META_FIELDS].join(', ')}`);
      continue;
    }
    doc[key] = expressions.json(property.initializer);
  }
  const fn = unwrap(fnNode);
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) {
    return issues.at(fnNode, 'the flow is a function: async ({ input, step, steps }) => { … }');
  }
  const param = fn.parameters[0];
  if (fn.parameters.length > 1 || (param && !ts.isObjectBindingPattern(param.name))) {
    return issues.at(param ?? fn, 'the flow function destructures its argument: async ({ input, step, steps }) => …');
  }
  if (param && ts.isObjectBindingPattern(param.name)) {
    for (const element of param.name.elements) {
      const name = ts.isIdentifier(element.name) ? element.name.text : '';
      if (element.propertyName || element.initializer || !FLOW_NAMES.has(name))
        issues.at(element, 'the flow function receives only input, step and steps, by those names');
    }
  }
  const reader = new StepReader(ctx);
  if (ts.isBlock(fn.body)) {
    const { steps, output, hasOutput } = reader.block(fn.body.statements, true);
    doc.steps = steps;
    if (hasOutput) doc.output = output;
  } else {
    doc.steps = [reader.step(fn.body as ts.CallExpression, fn.body as unknown as ts.Statement)];
  }
  return doc;
}

/** The names a module declares at its top level: imports, functions, `const { … } = helpers`. */
function moduleNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const bind = (name: ts.BindingName | ts.Identifier | undefined) => {
    if (name === undefined) return;
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement)) bind(statement.name);
    else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) bind(d.name);
    else if (ts.isImportDeclaration(statement) && statement.importClause) {
      const { name, namedBindings } = statement.importClause;
      bind(name);
      if (namedBindings && ts.isNamespaceImport(namedBindings)) bind(namedBindings.name);
      else if (namedBindings) for (const specifier of namedBindings.elements) bind(specifier.name);
    }
  }
  return names;
}

function isDefineFlow(node: ts.Expression): node is ts.CallExpression {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineFlow';
}

function isAllowedAtModuleLevel(statement: ts.Statement): boolean {
  if (ts.isImportDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement))
    return true;
  if (ts.isFunctionDeclaration(statement) || ts.isEmptyStatement(statement)) return true;
  if (ts.isVariableStatement(statement)) {
    // `const { len, json } = helpers;`
    return statement.declarationList.declarations.every(
      (d) =>
        ts.isObjectBindingPattern(d.name) &&
        d.initializer !== undefined &&
        ts.isIdentifier(d.initializer) &&
        d.initializer.text === 'helpers',
    );
  }
  return false;
}

function sorted(list: ImportIssue[]): ImportIssue[] {
  return [...list].sort((a, b) => a.line - b.line || a.column - b.column);
}
