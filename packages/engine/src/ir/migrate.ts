/**
 * IR migrations: a document written for an older `irVersion` is brought forward one version
 * at a time before it is validated. Version 1 is the first, so the table is empty; the hook is
 * here so version 2 only has to add `{ from: 1, migrate }` and raise IR_VERSION (migrate.test.ts
 * drives the hook with a synthetic table, and checks the real one has no gap).
 */
import { IR_VERSION } from './flow.ts';

export interface Migration {
  from: number;
  /**
   * The document for version `from + 1` (its `irVersion` is set by migrateFlow). Returns a new
   * object and leaves its argument as it is: the argument may be the caller's own document.
   */
  migrate(doc: Record<string, unknown>): Record<string, unknown>;
}

export const MIGRATIONS: readonly Migration[] = [];

export type MigrationResult = { ok: true; doc: unknown; from: number } | { ok: false; message: string };

export function migrateFlow(
  doc: unknown,
  migrations: readonly Migration[] = MIGRATIONS,
  target = IR_VERSION,
): MigrationResult {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return { ok: false, message: 'a flow must be a JSON object' };
  }
  let current = doc as Record<string, unknown>;
  const from = current.irVersion;
  if (typeof from !== 'number' || !Number.isInteger(from) || from < 1) {
    const reads = target === 1 ? 'irVersion 1' : `irVersion 1 to ${target}`;
    return { ok: false, message: `irVersion must be a positive integer (this Weft reads ${reads})` };
  }
  if (from > target) {
    return { ok: false, message: `irVersion ${from} was written by a newer Weft; this one reads up to ${target}` };
  }
  for (let version = from; version < target; version++) {
    const step = migrations.find((migration) => migration.from === version);
    if (!step) return { ok: false, message: `no migration from irVersion ${version}` };
    // A copy with the new version: the input document is never written to.
    current = { ...step.migrate(current), irVersion: version + 1 };
  }
  return { ok: true, doc: current, from };
}
