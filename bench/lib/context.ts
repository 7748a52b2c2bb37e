/** What every scenario gets: sizes, the timing plan, a temp dir, and where to put notes. */
import type { Plan } from './measure.ts';

export interface Sizes {
  /** Rows 1–3: sequential no-op steps per run. */
  steps: number;
  /** Row 4: branches of the parallel fan-out. */
  fanOut: number;
  /** Row 5: model turns of the agent loop. */
  turns: number;
  /** Row 6: runs parked at an approval at once. */
  parked: number;
}

export interface BenchContext {
  plan: Plan;
  sizes: Sizes;
  /** A temp dir for SQLite files, removed at the end. */
  dir: string;
  /** Lines printed under the table. */
  notes: string[];
  /** Progress, to stderr, so stdout holds only the report. */
  progress(message: string): void;
}
