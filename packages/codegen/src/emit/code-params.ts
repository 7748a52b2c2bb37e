/**
 * A code step's body is JavaScript. Written into a TypeScript module whose `args`/`input`/`steps`
 * are `any`, most of it type-checks as is, but under `--strict` a callback's parameters
 * (`args.items.map((item, i) => …)`) are implicit `any` errors, as nothing gives them a type.
 * `annotateParameters` adds `: any` to every parameter that has neither a type nor a default,
 * and changes nothing else.
 *
 * The weft target imports back, so its annotations must come off losslessly: it writes a bare
 * arrow parameter `x =>` as `(x : any) =>` (space before the colon), unlike a parenthesised
 * `(x) =>` → `(x: any) =>`, so that the two stay apart once the types are blanked (see
 * `codeSourceFromFunctionText` in the engine). `codeSourceFromTypeScript` is that way back.
 */
import { codeSourceFromFunctionText } from '@weft/engine';
import ts from 'typescript';

const PREFIX = 'async function body(args: any, input: any, steps: any) {';

export interface AnnotateOptions {
  /** What a bare arrow parameter `x` becomes after `(x`: `: any)` by default. */
  bareArrow?: ': any)' | ' : any)';
}

export function annotateParameters(source: string, options: AnnotateOptions = {}): string {
  const bareArrow = options.bareArrow ?? ': any)';
  const text = `${PREFIX}${source}\n}`;
  const file = ts.createSourceFile('code.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: { at: number; insert: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && node.pos >= PREFIX.length) {
      const params = (node as ts.SignatureDeclaration).parameters;
      const bare =
        ts.isArrowFunction(node) &&
        params.length === 1 &&
        text[params[0]!.getStart(file)] !== '(' &&
        !hasParen(node, file);
      for (const param of params) {
        if (param.type !== undefined || param.initializer !== undefined) continue;
        const end = param.questionToken?.end ?? param.name.end;
        if (bare) {
          edits.push({ at: param.getStart(file), insert: '(' }, { at: end, insert: bareArrow });
        } else {
          edits.push({ at: end, insert: ': any' });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(file, visit);
  let out = text;
  for (const edit of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, edit.at) + edit.insert + out.slice(edit.at);
  return out.slice(PREFIX.length, -2);
}

function hasParen(node: ts.ArrowFunction, file: ts.SourceFile): boolean {
  return node.getChildren(file).some((child) => child.kind === ts.SyntaxKind.OpenParenToken);
}

/**
 * The sandbox source of a code function written in TypeScript (`function f(args: any, …) { … }`,
 * as the weft target emits it): every parameter's `: any` is blanked to spaces, as Node's type
 * stripping does before `fn.toString()` sees the function, then read by the engine's
 * `codeSourceFromFunctionText`. So an import reads exactly what a run of the module executes.
 */
export function codeSourceFromTypeScript(text: string): string | undefined {
  return codeSourceFromFunctionText(blankAnyAnnotations(text));
}

/** `text` with the `: any` of every parameter (and nothing else) replaced by spaces. */
export function blankAnyAnnotations(text: string): string {
  // Parenthesised, a function declaration, function expression or arrow is an expression.
  const wrapped = `(${text})`;
  const file = ts.createSourceFile('code.ts', wrapped, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const blanks: { from: number; to: number }[] = [];
  const visit = (node: ts.Node): void => {
    const colon = ts.isParameter(node)
      ? node.getChildren(file).find((c) => c.kind === ts.SyntaxKind.ColonToken)
      : undefined;
    if (colon !== undefined && (node as ts.ParameterDeclaration).type?.kind === ts.SyntaxKind.AnyKeyword) {
      blanks.push({ from: colon.getStart(file), to: (node as ts.ParameterDeclaration).type!.end });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = wrapped;
  for (const { from, to } of blanks) out = out.slice(0, from) + ' '.repeat(to - from) + out.slice(to);
  return out.slice(1, -1);
}
