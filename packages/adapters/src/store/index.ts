/**
 * The run store: where the in-process runner keeps runs, their step journal, their event log
 * and approvals. SQLite (a file under `data/`) by default, PostgreSQL when a URL says so.
 */
import { join } from 'node:path';
import { openPostgresStore } from './postgres.ts';
import { openSqliteStore } from './sqlite.ts';
import type { RunStore } from './types.ts';

export {
  checkSize,
  EVENT_LIMIT,
  formatBytes,
  jsonBytes,
  RUN_OUTPUT_LIMIT,
  type SizeLimit,
  SizeLimitError,
  STEP_OUTPUT_LIMIT,
  sizeLimit,
} from '../limits.ts';
export { followRun, type NextOptions, RunFollower, waitForEnd } from './follow-run.ts';
export { COMMITS_CHANNEL, FEED_APPLICATION_NAME } from './pg-feed.ts';
export { openPostgresStore } from './postgres.ts';
export { reportRunEvents } from './report-events.ts';
export { InvalidCursorError, PREVIEW_CHARS, searchTerms } from './run-search.ts';
export { openSqliteStore } from './sqlite.ts';
export type * from './types.ts';

export interface OpenStoreOptions {
  /** `postgres://…` / `postgresql://…` for PostgreSQL; otherwise a SQLite file path or ':memory:'. */
  url?: string;
  /** Where the default SQLite file (`weft.db`) lives when no url is given. Default `data`. */
  dataDir?: string;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export async function openStore(options: OpenStoreOptions = {}): Promise<RunStore> {
  const { url } = options;
  if (url !== undefined && url !== '' && isPostgresUrl(url)) return openPostgresStore(url);
  return openSqliteStore(url !== undefined && url !== '' ? url : join(options.dataDir ?? 'data', 'weft.db'));
}
