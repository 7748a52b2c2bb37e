/**
 * Did the run start the same steps in the same order as the saved one? Order is compared per
 * lane: the steps under one parent path (`""` for the top level, `fanout.a` for a parallel
 * branch, `each[2]` for a map item, `agent` for an agent loop's turns and tool calls). A lane runs
 * its steps one after another, so their order is the flow's; between lanes it is timing — the
 * saved run waited on real models and servers, the test answers at once — so two `parallel`
 * branches or `map` items may interleave differently with nothing changed.
 */
const TOP = '';

export function stepsDifference(expected: readonly string[], actual: readonly string[]): string | undefined {
  const lanes = (ids: readonly string[]) => {
    const byLane = new Map<string, string[]>();
    for (const id of ids) {
      const lane = laneOf(id);
      byLane.set(lane, [...(byLane.get(lane) ?? []), id]);
    }
    return byLane;
  };
  const want = lanes(expected);
  const got = lanes(actual);
  const position = new Map<string, number>();
  // Walk the expected order: the first step whose place in its lane holds another (or nothing)
  // is where the runs part.
  for (const [index, id] of expected.entries()) {
    const lane = laneOf(id);
    const nth = position.get(lane) ?? 0;
    position.set(lane, nth + 1);
    const there = got.get(lane)?.[nth];
    if (there === id) continue;
    const where = `steps[${index}]`;
    if (there === undefined) return `${where}: expected '${id}' to start, the run did not start it`;
    return `${where}: expected '${id}' to start, the run started '${there}' there${lane ? ` (in '${lane}')` : ''}`;
  }
  for (const [lane, ids] of got) {
    const extra = ids[want.get(lane)?.length ?? 0];
    if (extra !== undefined) return `steps: the run started '${extra}', which the case does not expect`;
  }
  return undefined;
}

/** `each[2]/summarize` → `each[2]`; `agent/llm#3` → `agent`; `classify` → the top level. */
export function laneOf(stepId: string): string {
  const slash = stepId.lastIndexOf('/');
  return slash < 0 ? TOP : stepId.slice(0, slash);
}
