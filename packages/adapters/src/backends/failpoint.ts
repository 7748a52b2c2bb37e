/**
 * Test-only failpoints: `WEFT_FAILPOINT=<name>` makes this process die (SIGKILL, no clean-up,
 * as a power cut or the OOM killer would) exactly when it reaches the named point, so a crash
 * test hits one window every time instead of a random moment. Never set it outside tests. The
 * one place the variable is read:
 *
 * - `handoff-after-commit`: a hand-off's seed and `run.handed-off` are committed; the runner has
 *   not let go of the run yet and the row still names the in-process runner.
 * - `handoff-before-start`: the row names the target engine; the engine's start is not sent.
 */
export type FailpointName = 'handoff-after-commit' | 'handoff-before-start';

export function failpoint(name: FailpointName): void {
  if (process.env.WEFT_FAILPOINT === name) process.kill(process.pid, 'SIGKILL');
}
