/**
 * A code step's body is JavaScript. Written into a TypeScript module whose `args`/`input`/`steps`
 * are `any`, most of it type-checks as is, but under `--strict` a callback's parameters
 * (`args.items.map((item, i) => …)`) are implicit `any` errors, as nothing gives them a type.
 * `annotateParameters` adds `: any` to every parameter that has neither a type nor a default,
 * and changes nothing else.
 */
import ts from 'typescript';

const PREFIX = 'async function body(args: any, input: any, steps: any) {';

export function annotateParameters(source: string): string {
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
          edits.push({ at: param.getStart(file), insert: '(' }, { at: end, insert: ': any)' });
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
