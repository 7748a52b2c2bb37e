/**
 * Runs in this machine's store, through the run service of a runtime this command opens
 * (../runtime.ts via context.ts): in-process runs execute here while the command lasts, and a
 * Temporal worker or the Inngest function is hosted here for runs on those engines.
 */
import type { BackendName } from '@weft/adapters/backends';
import { InputInvalidError, InputTooLargeError } from '@weft/adapters/inprocess';
import { ApprovalClosedError, BackendRefusedError, UnknownCheckpointError } from '@weft/adapters/service';
import type { ApprovalRecord, RunRecord, RunStore } from '@weft/adapters/store';
import { FlowInvalidError, isFinalStatus, runState } from '@weft/engine';
import { osUser } from './approvals.ts';
import { awaitCancelled } from './cancelled.ts';
import { formatIssues } from './commands/validate.ts';
import { type CliRuntime, openCliRuntime, openStoreFromEnv, recalledFlowsDir, rememberFlowsDir } from './context.ts';
import { BACKEND_LABEL, isExternalBackend } from './external.ts';
import { bookmarks, followRunTree } from './follow.ts';
import { CliError, EXIT, formatDateTime, stderr } from './output.ts';
import type { AccessOptions, RunAccess } from './run-access.ts';
import { RunRefused } from './run-access.ts';
import { approveCommand, getRunOrFail, rootOf, runTree, shellQuote } from './tree.ts';

export async function openLocalAccess(options: AccessOptions): Promise<RunAccess> {
  const { env } = options;
  const store = await openStoreFromEnv(env);
  let runtime: CliRuntime | undefined;

  /**
   * The runtime, opened once, with the engine `backend` needs (for a run that hands off: the
   * engine it hands off to) and the flows of `rootRunId`'s folder.
   */
  const open = async (backend: string, rootRunId?: string): Promise<CliRuntime> => {
    if (runtime) return runtime;
    const external = isExternalBackend(backend) ? backend : undefined;
    const recalled = rootRunId ? await recalledFlowsDir(env, rootRunId) : undefined;
    runtime = await openCliRuntime({
      env,
      store,
      flowsDir: options.flowsDir ?? recalled ?? (external ? '.' : undefined),
      ...(options.decider ? { decide: options.decider.decide } : {}),
      external: external ? [external] : [],
    });
    return runtime;
  };
  const opened = (): CliRuntime => {
    if (!runtime) throw new Error('no runtime is open: start, approve, resume or replay a run first');
    return runtime;
  };

  return {
    async start({ doc, file, input, fixtures, backend, handoff }) {
      const handsOffTo = backend === 'inprocess' ? (handoff?.to ?? flowHandoffTarget(doc)) : undefined;
      const service = (await open(handsOffTo ?? backend)).service;
      try {
        const { runId } = await service.start({
          flow: doc,
          input,
          ...(fixtures ? { fixtures } : {}),
          backend: backend as BackendName,
          ...(handoff ? { handoff } : {}),
        });
        if (options.flowsDir) await rememberFlowsDir(env, runId, options.flowsDir);
        return runId;
      } catch (error) {
        throw refusal(error, file);
      }
    },

    async approve(runId, stepId, decision) {
      const approval = await findApproval(store, runId, stepId);
      const run = await getRunOrFail(store, approval.runId);
      const root = await rootOf(store, run);
      if (approval.status !== 'pending') return alreadyDecided(approval, root.status, root.id);
      if (isFinalStatus(run.status)) {
        stderr.write(`${stderr.style('yellow', '!')} run ${run.id} already ${run.status}; nothing to approve\n`);
        return EXIT.failed;
      }
      const { service } = await open(root.backend, root.id);
      const after = await bookmarks(store, root.id);
      if (approval.deadline !== null && approval.deadline <= Date.now()) {
        // Too late to decide: continuing the run records the timeout and applies its onTimeout.
        stderr.write(
          `${stderr.style('yellow', '!')} the approval at step '${approval.stepId}' timed out at ${formatDateTime(approval.deadline)}; not recorded. Continuing the run, which applies its onTimeout\n`,
        );
        await service.resume(approval.runId);
        return { rootRunId: root.id, after, targetRunId: approval.runId };
      }
      try {
        await service.decide(approval.runId, approval.stepId, {
          approved: decision.approved,
          by: decision.by ?? osUser(),
          comment: decision.comment ?? null,
        });
      } catch (error) {
        if (error instanceof ApprovalClosedError) return alreadyDecided(error.approval, root.status, root.id);
        if (!isExternalBackend(root.backend)) throw error;
        // Recorded in the store first: the engine finds it when it next looks (Inngest re-sends it).
        throw new CliError(
          `the decision is recorded, but delivering it to ${BACKEND_LABEL[root.backend]} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const verdict = stderr.style(
        decision.approved ? 'green' : 'red',
        decision.approved ? '☑ approved' : '☒ rejected',
      );
      stderr.write(`${verdict} ${approval.stepId} of run ${approval.runId}; continuing\n`);
      return { rootRunId: root.id, after, targetRunId: approval.runId };
    },

    async resume(runId) {
      const run = await getRunOrFail(store, runId);
      const root = await rootOf(store, run);
      if (isFinalStatus(run.status)) stderr.write(`run ${run.id} already ${run.status}; nothing to resume\n`);
      // Resuming the root replays it down into its unfinished child runs, so a crash anywhere in
      // the tree is picked up; a child whose root has ended is resumed on its own.
      const target = isFinalStatus(root.status) ? run : root;
      const { service } = await open(root.backend, root.id);
      const after = await bookmarks(store, root.id);
      if (!isFinalStatus(target.status)) await service.resume(target.id);
      return { rootRunId: root.id, after, targetRunId: target.id };
    },

    async cancel(runId) {
      const run = await getRunOrFail(store, runId);
      if (isFinalStatus(run.status)) {
        stderr.write(`run ${run.id} already ${run.status}; nothing to cancel\n`);
        return EXIT.ok;
      }
      await (await open(run.backend)).service.cancel(run.id);
      if (isExternalBackend(run.backend)) return awaitCancelled(store, run.backend, run.id);
      stderr.write(`${stderr.style('bold', '■ cancelled')} run ${run.id}\n`);
      return EXIT.ok;
    },

    async previewReplay(runId, request) {
      const source = await getRunOrFail(store, runId);
      const { service } = await open(request.backend ?? source.backend, (await rootOf(store, source)).id);
      return checkpointErrors(() => service.previewReplay(runId, request));
    },

    async replay(runId, request) {
      const source = await getRunOrFail(store, runId);
      const { service } = await open(request.backend ?? source.backend, (await rootOf(store, source)).id);
      return checkpointErrors(() => service.replay(runId, request));
    },

    async state(runId) {
      const run = await getRunOrFail(store, runId);
      return { run, state: runState(await store.readEvents(run.id)) };
    },

    async follow(rootRunId, { json, decider, after, targetRunId, extra }) {
      const { service, inprocess } = opened();
      return followRunTree(service, rootRunId, {
        json,
        ...(decider ? { decider } : {}),
        ...(after ? { after } : {}),
        settled: inprocess.settled(),
        ...(targetRunId ? { busy: () => opened().busy(targetRunId) } : {}),
        ...(extra ? { extra } : {}),
      });
    },

    async close() {
      if (runtime) await runtime.close();
      else await store.close().catch(() => undefined);
    },
  };
}

/** The engine a flow document's own `handoff` names, if any (validated when the run starts). */
function flowHandoffTarget(doc: unknown): string | undefined {
  if (typeof doc !== 'object' || doc === null) return undefined;
  const handoff = (doc as { handoff?: unknown }).handoff;
  const to = typeof handoff === 'object' && handoff !== null ? (handoff as { to?: unknown }).to : undefined;
  return typeof to === 'string' && isExternalBackend(to) ? to : undefined;
}

/** Why a run could not start, worded for the terminal and kept whole for the --json line. */
function refusal(error: unknown, file: string): unknown {
  if (error instanceof FlowInvalidError)
    return new RunRefused(`flow ${file} is invalid:\n${formatIssues(error.issues).trimEnd()}`, {
      issues: error.issues,
      detail: error.message,
    });
  if (error instanceof InputInvalidError) {
    const lines = error.issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n');
    return new RunRefused(`the input does not fit the flow's input schema:\n${lines}`, {
      issues: error.issues,
      detail: error.message,
    });
  }
  if (error instanceof InputTooLargeError) return new RunRefused(error.message);
  // Recorded, then refused by its engine: the run exists and ended failed.
  if (error instanceof BackendRefusedError) return new RunRefused(error.message, { invalid: false });
  return error;
}

async function checkpointErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnknownCheckpointError) throw new CliError(error.message);
    throw error;
  }
}

/** The approval at (runId, stepId), or the one with that step id in the run's child runs. */
async function findApproval(store: RunStore, runId: string, stepId: string): Promise<ApprovalRecord> {
  const run = await getRunOrFail(store, runId);
  const direct = await store.getApproval(runId, stepId);
  if (direct) return direct;
  const runs: RunRecord[] = await runTree(store, run);
  const candidates: ApprovalRecord[] = [];
  for (const candidate of runs) {
    for (const approval of await store.listApprovals({ runId: candidate.id })) {
      if (approval.stepId === stepId || approval.stepId.endsWith(`/${stepId}`)) candidates.push(approval);
    }
  }
  const pending = candidates.filter((approval) => approval.status === 'pending');
  const pick = pending.length === 1 ? pending : candidates;
  if (pick.length === 1) return pick[0]!;
  const all = (await Promise.all(runs.map((r) => store.listApprovals({ runId: r.id, status: 'pending' })))).flat();
  const hint =
    all.length > 0
      ? `\n  pending approvals:\n${all.map((a) => `    ${approveCommand(a.runId, a.stepId)}`).join('\n')}`
      : `\n  it has no pending approvals (see \`weft runs show ${shellQuote(runId)}\`)`;
  if (pick.length > 1)
    throw new CliError(`step '${stepId}' names several approvals in run ${runId}; say which:${hint}`);
  throw new CliError(`run ${runId} has no approval at step '${stepId}'${hint}`);
}

function alreadyDecided(approval: ApprovalRecord, rootStatus: string, rootId: string): number {
  const verdict = approval.status === 'timed-out' ? 'timed out' : approval.status;
  const by = approval.decidedBy ? ` by ${approval.decidedBy}` : '';
  const at = approval.decidedAt ? ` at ${formatDateTime(approval.decidedAt)}` : '';
  const comment = approval.comment ? ` (${JSON.stringify(approval.comment)})` : '';
  stderr.write(
    `${stderr.style('yellow', '!')} the approval at step '${approval.stepId}' of run ${approval.runId} was already decided: ${verdict}${by}${at}${comment}\n`,
  );
  if (rootStatus === 'waiting' || rootStatus === 'running') {
    stderr.write(
      `  the run is ${rootStatus}; if nothing is executing it, continue it with: weft runs resume ${shellQuote(rootId)}\n`,
    );
  }
  return EXIT.failed;
}
