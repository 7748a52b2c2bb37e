/**
 * Every example flow, exported to each target, type-checks under `tsc --strict` in a project
 * that can see only that target's runtime dependencies (plus Node's own types): the files go
 * into `.tmp-typecheck-<target>/` with a `node_modules` of symlinks to just those packages, and
 * every import in them must name one of those packages or a sibling export. The examples are
 * exported as a set (a spawn imports the child's export) and each also alone (a spawn refers
 * to the child by id), into `single/`.
 */
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Flow, validateFlow } from '@weft/engine';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { type ExportTargetName, exportFlowFiles } from './export-flow.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

/** What each target's export may import (and so all its test project can resolve). */
const RUNTIME: Record<ExportTargetName, string[]> = {
  weft: ['@weft/engine'],
  inngest: ['inngest', 'ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/openai-compatible'],
  temporal: [
    '@temporalio/workflow',
    '@temporalio/activity',
    'ai',
    '@ai-sdk/openai',
    '@ai-sdk/anthropic',
    '@ai-sdk/openai-compatible',
  ],
};

const flows: Flow[] = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith('.json') && !name.endsWith('.input.json') && !name.endsWith('.fixtures.json'))
  .map((name) => {
    const result = validateFlow(JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8')));
    if (!result.ok) throw new Error(`${name} is invalid`);
    return result.flow;
  });

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A folder whose node_modules holds only `packages` (and @types/node). */
function project(target: ExportTargetName): string {
  const folder = join(ROOT, `.tmp-typecheck-${target}-${process.pid}`);
  folders.push(folder);
  rmSync(folder, { recursive: true, force: true });
  for (const name of [...RUNTIME[target], '@types/node']) {
    const link = join(folder, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(packagePath(name)), link, 'dir');
  }
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const compilerOptions = {
    strict: true,
    target: 'es2024',
    lib: ['es2024'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    // The weft target's runtime, @weft/engine, is TypeScript source with .ts imports.
    allowImportingTsExtensions: true,
  };
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['**/*.ts'] }, null, 2));
  return folder;
}

function packagePath(name: string): string {
  // The test's own dependencies (devDependencies of @weft/codegen), else the workspace root's (@types/node).
  for (const base of [join(ROOT, 'node_modules'), join(ROOT, '../../node_modules')]) {
    try {
      return realpathSync(join(base, name));
    } catch {}
  }
  throw new Error(`${name} is not installed`);
}

async function writeExports(folder: string, target: ExportTargetName): Promise<string[]> {
  const written: string[] = [];
  const ids = flows.map((flow) => flow.id);
  for (const [sub, options] of [
    ['', { flows: ids }],
    ['single', {}],
  ] as const) {
    mkdirSync(join(folder, sub), { recursive: true });
    for (const flow of flows) {
      for (const file of await exportFlowFiles(flow, target, options)) {
        const path = join(folder, sub, file.path);
        writeFileSync(path, file.contents);
        written.push(path);
      }
    }
  }
  return written;
}

function typecheck(folder: string): { diagnostics: string; files: string[] } {
  const config = ts.readConfigFile(join(folder, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, folder);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const diagnostics = ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => folder,
    getNewLine: () => '\n',
  });
  return { diagnostics, files: parsed.fileNames };
}

/** Every module specifier of every import/export in `file`. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier !== undefined &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

describe.each(['weft', 'inngest', 'temporal'] as const)('the %s export of every example', (target) => {
  it('type-checks with tsc --strict, seeing only its runtime dependencies', async () => {
    const folder = project(target);
    const written = await writeExports(folder, target);
    expect(written.length).toBeGreaterThanOrEqual(flows.length * 2);

    for (const file of written) {
      for (const specifier of importsOf(file)) {
        // A Node built-in (node:crypto, for idempotency keys) is no dependency to install.
        const builtin = target !== 'weft' && specifier.startsWith('node:');
        const allowed = specifier.startsWith('./') || builtin || RUNTIME[target].includes(specifier);
        expect(allowed, `${relative(folder, file)} imports ${specifier}`).toBe(true);
      }
    }

    const { diagnostics, files } = typecheck(folder);
    expect(files.length).toBe(written.length);
    // Zero diagnostics, code step bodies included (their untyped parameters are annotated).
    expect(diagnostics).toBe('');
  }, 180_000);
});
