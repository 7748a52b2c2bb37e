import type ts from 'typescript';

/** A problem in the imported source, 1-based like an editor shows it. */
export interface ImportIssue {
  line: number;
  column: number;
  message: string;
}

/** Collects every problem; a reader keeps going after one so the user sees them all at once. */
export class Issues {
  readonly list: ImportIssue[] = [];
  readonly #file: ts.SourceFile;

  constructor(file: ts.SourceFile) {
    this.#file = file;
  }

  at(node: ts.Node, message: string, offset = 0): undefined {
    this.atPosition(node.getStart(this.#file) + offset, message);
    return undefined;
  }

  atPosition(position: number, message: string): void {
    const { line, character } = this.#file.getLineAndCharacterOfPosition(position);
    this.list.push({ line: line + 1, column: character + 1, message });
  }
}
