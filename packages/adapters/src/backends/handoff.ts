/**
 * Where a run started in-process hands off to a durable engine (flow or run `handoff.at`): the
 * first call the in-process host would execute live that lies at the point. Only live calls
 * are asked: one answered from the journal or the seed costs nothing and stays where it is.
 *
 * - `first-tool-call`: a host tool call (kind `tool`), a `tool` step whatever its tool is (a flow
 *   tool makes a code, http or spawn call under the step's own id), or an agent's tool call
 *   (`agent/tool#2.0`) and anything under it.
 * - a step id: a checkpoint of that step or inside it, at any depth (`agent/llm#1`,
 *   `each[2]/pick`, `outer[0]/agent/tool#1.0`).
 */
import { FIRST_TOOL_CALL } from '@weft/engine';

export interface HandOffCandidate {
  /** The checkpoint id: a step path (`each[2]/pick`, `agent/llm#3`, `agent/tool#3.0`). */
  id: string;
  /** The call's kind (`model-turn`, `tool`, `code`, `http`, `spawn`, `sleep`, `approval`). */
  kind: string;
  /** The type of the step that started at this id, when one did (`tool`, `tool-call`, `llm`…). */
  stepType?: string | undefined;
}

/** An agent's tool call in a checkpoint id, followed by the end or a nested segment. */
const AGENT_TOOL_CALL = /\/tool#\d+\.\d+(?:$|[/[])/;
const TOOL_STEP_TYPES: ReadonlySet<string> = new Set(['tool', 'tool-call']);

/** True when the live call `candidate` is the hand-off point `at`. */
export function isHandOffPoint(at: string, candidate: HandOffCandidate): boolean {
  if (at === FIRST_TOOL_CALL)
    return (
      candidate.kind === 'tool' ||
      (candidate.stepType !== undefined && TOOL_STEP_TYPES.has(candidate.stepType)) ||
      AGENT_TOOL_CALL.test(candidate.id)
    );
  // Step ids are identifiers, so a path's segments are `<id>`, `<id>[<index>]`, `llm#n`, `tool#n.m`.
  return candidate.id.split('/').some((segment) => segment === at || segment.startsWith(`${at}[`));
}
