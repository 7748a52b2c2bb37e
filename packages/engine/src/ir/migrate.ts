/**
 * IR migrations: a document written for an older `irVersion` is brought forward one version
 * at a time before it is validated. Version 1 is the first, so the table is empty; the hook is
 * here so version 2 only has to add `{ from: 1, migrate }`.
 */
import { IR_VERSION } from './flow.ts';

export interface Migration {
  from: number;
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
    return { ok: false, message: 'irVersion must be a positive integer (this Weft reads irVersion 1)' };
  }
  if (from > target) {
    return { ok: false, message: `irVersion ${from} was written by a newer Weft; this one reads up to ${target}` };
  }
  for (let version = from; version < target; version++) {
    const step = migrations.find((migration) => migration.from === version);
    if (!step) return { ok: false, message: `no migration from irVersion ${version}` };
    current = { ...step.migrate(current), irVersion: version + 1 };
  }
  return { ok: true, doc: current, from };
}
