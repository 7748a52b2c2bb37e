/**
 * What the Export dialog and the TypeScript import need besides React: the targets, the names
 * files download as, the download itself, and reading the server's import failure back into
 * its problems (flows.importCode lists each as `line:column message` under a one-line summary).
 */

export const EXPORT_TARGETS = [
  {
    id: 'weft',
    label: 'Weft',
    description: 'The code-first defineFlow module: runs on every Weft backend and imports back into the editor.',
  },
  {
    id: 'inngest',
    label: 'Inngest',
    description: 'A plain Inngest function that runs without Weft.',
  },
  {
    id: 'temporal',
    label: 'Temporal',
    description: 'A Temporal workflow and its activities, in two files, that run without Weft.',
  },
] as const;

export type ExportTargetId = (typeof EXPORT_TARGETS)[number]['id'];

/** One exported file, as flows.exportCode returns it. */
export interface CodeFile {
  path: string;
  contents: string;
}

/**
 * The name a file downloads as: the export's path without folders, limited to characters every
 * file system takes, ending in `.ts` (`support-triage.workflow.ts`).
 */
export function downloadName(path: string): string {
  const base = path.split(/[\\/]/).at(-1) ?? '';
  const safe = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  const name = safe || 'flow.ts';
  return /\.m?ts$/.test(name) ? name : `${name}.ts`;
}

/** The file's text as a download: UTF-8 TypeScript, newline-terminated. */
export function codeBlob(file: CodeFile): Blob {
  const text = file.contents.endsWith('\n') ? file.contents : `${file.contents}\n`;
  return new Blob([text], { type: 'text/typescript;charset=utf-8' });
}

/** Saves each file through a temporary link (one download per file). */
export function downloadFiles(files: readonly CodeFile[]): void {
  for (const file of files) {
    const url = URL.createObjectURL(codeBlob(file));
    const link = document.createElement('a');
    link.href = url;
    link.download = downloadName(file.path);
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
}

/** "Download", "Download 2 files": the download button's text. */
export function downloadLabel(count: number): string {
  return count > 1 ? `Download ${count} files` : 'Download';
}

export interface ImportProblem {
  line: number;
  column: number;
  message: string;
}

export interface ImportFailure {
  summary: string;
  problems: ImportProblem[];
}

/**
 * flows.importCode's BAD_REQUEST message (`<file> cannot be imported (N problems):` then one
 * `line:column message` a line) as its parts. Any other message is a summary with no problems.
 */
export function parseImportFailure(message: string): ImportFailure {
  const [summary = '', ...rest] = message.split('\n');
  const problems: ImportProblem[] = [];
  for (const line of rest) {
    const match = /^(\d+):(\d+) (.*)$/.exec(line);
    if (match) problems.push({ line: Number(match[1]), column: Number(match[2]), message: match[3]! });
    else if (problems.length > 0) problems[problems.length - 1]!.message += `\n${line}`;
  }
  return { summary: summary.replace(/:$/, ''), problems };
}

/** The toast after an import: says when the flow got another id because its own was taken. */
export function importNotice(result: { flow: { id: string; name: string }; renamedFrom: string | null }): string {
  const { flow, renamedFrom } = result;
  return renamedFrom
    ? `Imported ${flow.name} as ${flow.id}: a flow '${renamedFrom}' exists already`
    : `Imported ${flow.name}`;
}
