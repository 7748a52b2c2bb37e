/** Child runs (spawn steps and flow tools): their ids, how deep they nest, what they return. */
import type { Fixtures } from '@weft/engine';
import type { ApprovalDecider, SpawnOutcome } from '../inprocess/host.ts';
import type { RunOutcome, StartOptions } from '../inprocess/options.ts';
import type { RunRecord, RunStore } from '../store/types.ts';

/** How deep spawns may nest: a cycle a flow source hides from validation ends here. */
export const MAX_SPAWN_DEPTH = 16;

/** The id of the child run a spawn (or flow tool) at `stepId` starts: stable, so a replay finds it. */
export function childRunId(parentRunId: string, stepId: string): string {
  return `${parentRunId}~${stepId}`;
}

/** How many ancestors `run` has (stops counting past the limit). */
export async function spawnDepth(store: RunStore, run: RunRecord): Promise<number> {
  let depth = 0;
  let current: RunRecord | undefined = run;
  while (current?.parentRunId && depth <= MAX_SPAWN_DEPTH) {
    depth++;
    current = await store.getRun(current.parentRunId);
  }
  return depth;
}

export const SPAWN_DEPTH_EXCEEDED: SpawnOutcome = {
  status: 'failed',
  error: {
    name: 'SpawnDepthError',
    message: `spawn depth ${MAX_SPAWN_DEPTH} exceeded: do these flows spawn each other in a cycle?`,
  },
};

/** What the parent's spawn step gets from a child's record or its execution's outcome. */
export function spawnOutcome(child: Pick<RunOutcome, 'status' | 'output' | 'error'>): SpawnOutcome {
  switch (child.status) {
    case 'completed':
      return { status: 'completed', output: child.output };
    case 'waiting':
    case 'running': // its runner was closed mid-run: it continues with recover()
      return { status: 'waiting' };
    case 'failed':
    case 'cancelled':
      return { status: child.status, error: child.error ?? { name: 'Error', message: `child run ${child.status}` } };
  }
}

/** What a parent's execution passes on to its children: decisions, not a replacement flow. */
export function childOptions(options: StartOptions, fallback?: ApprovalDecider): StartOptions {
  const decide = options.decide ?? fallback;
  return decide ? { decide } : {};
}

/**
 * The fixtures a child run sees: the parent's, with turns recorded under the spawn step's path
 * (`<spawnStep>/<childStep>`, as `weft runs fixtures` exports them) taking precedence over a bare
 * step id, so a parent and a child with the same llm step id do not collide.
 */
export function childFixtures(fixtures: Fixtures | null, stepId: string): Fixtures | null {
  if (!fixtures) return null;
  const prefix = `${stepId}/`;
  const own: Fixtures = {};
  for (const [key, turns] of Object.entries(fixtures))
    if (key.startsWith(prefix)) own[key.slice(prefix.length)] = turns;
  return { ...fixtures, ...own };
}
