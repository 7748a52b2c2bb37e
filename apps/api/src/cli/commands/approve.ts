/**
 * `weft approve <runId> <stepId> yes|no`: decides through the run service — exactly one
 * decision wins, whichever process makes it — and continues the run here (or follows it on
 * its engine), streaming progress like `weft run`.
 * The approval may sit in a child run (a spawned flow): the child continues, and its end wakes
 * the parent. Given the parent's id, the child holding the approval is found.
 */

import { ApprovalClosedError } from '@weft/adapters/service';
import type { ApprovalRecord, RunStore } from '@weft/adapters/store';
import { isFinalStatus } from '@weft/engine';
import { cliDecider, osUser, parseVerdict, terminalIsInteractive } from '../approvals.ts';
import { type Command, parseCommandArgs } from '../args.ts';
import { messageOf, openCliRuntime, openStoreFromEnv, readEnv, recalledFlowsDir } from '../context.ts';
import { BACKEND_LABEL, isExternalBackend } from '../external.ts';
import { BusyError, bookmarks, followRunTree } from '../follow.ts';
import { CliError, EXIT, formatDateTime, stderr, stdout, UsageError } from '../output.ts';
import { connect, followRun, type Remote, SERVER_OPTION, SERVER_USAGE, serverUrl } from '../remote.ts';
import { approveCommand, getRunOrFail, rootOf, runTree, shellQuote } from '../tree.ts';

const usage = `Usage: weft approve <runId> <stepId> yes|no [--comment <text>] [--by <name>] [--json]

Decides a pending approval and continues the run in this process.

Options:
  --comment <text>  a note kept with the decision
  --by <name>       who decided (default: the OS user name)
  --flows <dir>     where \`spawn\` finds flows (default: the folder the run was started with)
  --json            print { "runId", "status", "output" } as the last line of stdout
${SERVER_USAGE}
  -h, --help        show this help

Exit status: 0 completed, 1 failed or already decided, 2 parked again.`;

export const approveCommandSpec: Command = {
  name: 'approve',
  summary: 'decide a pending approval and continue the run',
  usage,
  async run(argv) {
    const args = parseCommandArgs(argv, {
      usage,
      options: {
        comment: { type: 'string' },
        by: { type: 'string' },
        flows: { type: 'string' },
        json: { type: 'boolean' },
        ...SERVER_OPTION,
      },
      positionals: { min: 3, max: 3, names: '<runId> <stepId> yes|no' },
    });
    if (args.help) {
      stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    const [runId, stepId, verdictText] = args.positionals as [string, string, string];
    const approved = parseVerdict(verdictText);
    if (approved === undefined) throw new UsageError(`the decision must be yes or no, got '${verdictText}'`, usage);
    const server = serverUrl(args.values.server);
    if (server) {
      return approveRemote(connect(server), runId, stepId, approved, {
        comment: args.values.comment,
        json: args.values.json === true,
      });
    }
    const env = readEnv();
    const store = await openStoreFromEnv(env);
    let closeStore = true;
    try {
      const approval = await findApproval(store, runId, stepId);
      const run = await getRunOrFail(store, approval.runId);
      const root = await rootOf(store, run);
      if (approval.status !== 'pending') return alreadyDecided(approval, root.status, root.id);
      if (isFinalStatus(run.status)) {
        stderr.write(`${stderr.style('yellow', '!')} run ${run.id} already ${run.status}; nothing to approve\n`);
        return EXIT.failed;
      }
      const external = isExternalBackend(root.backend) ? root.backend : undefined;
      const flowsDir = args.values.flows ?? (await recalledFlowsDir(env, root.id)) ?? (external ? '.' : undefined);
      const decider = cliDecider(new Map(), terminalIsInteractive());
      const runtime = await openCliRuntime({
        env,
        store,
        flowsDir,
        decide: decider.decide,
        external: external ? [external] : [],
      });
      closeStore = false;
      try {
        const after = await bookmarks(store, root.id);
        if (approval.deadline !== null && approval.deadline <= Date.now()) {
          // Too late to decide: continuing the run records the timeout and applies its onTimeout.
          stderr.write(
            `${stderr.style('yellow', '!')} the approval at step '${approval.stepId}' timed out at ${formatDateTime(approval.deadline)}; not recorded. Continuing the run, which applies its onTimeout\n`,
          );
          await runtime.service.resume(approval.runId);
        } else {
          const by = args.values.by ?? osUser();
          try {
            await runtime.service.decide(approval.runId, approval.stepId, {
              approved,
              by,
              comment: args.values.comment ?? null,
            });
          } catch (error) {
            if (error instanceof ApprovalClosedError) return alreadyDecided(error.approval, root.status, root.id);
            if (!external) throw error;
            // Recorded in the store first: the engine finds it when it next looks (Inngest re-sends it).
            throw new CliError(
              `the decision is recorded, but delivering it to ${BACKEND_LABEL[external]} failed: ${messageOf(error)}`,
            );
          }
          const verdict = stderr.style(approved ? 'green' : 'red', approved ? '☑ approved' : '☒ rejected');
          stderr.write(`${verdict} ${approval.stepId} of run ${approval.runId}; continuing\n`);
        }
        return await followRunTree(runtime.service, root.id, {
          json: args.values.json === true,
          after,
          settled: runtime.inprocess.settled(),
          busy: () => runtime.busy(approval.runId),
        });
      } catch (error) {
        if (!(error instanceof BusyError)) throw error;
        // The decision is recorded; the process holding the run sees it when it next looks.
        stderr.write(
          `${stderr.style('yellow', '!')} the decision is recorded, but run ${approval.runId} is being executed by another live process, which continues it\n`,
        );
        return EXIT.parked;
      } finally {
        await runtime.close();
      }
    } finally {
      if (closeStore) await store.close();
    }
  },
};

/** The approval at (runId, stepId), or the one with that step id in the run's child runs. */
async function findApproval(store: RunStore, runId: string, stepId: string): Promise<ApprovalRecord> {
  const run = await getRunOrFail(store, runId);
  const direct = await store.getApproval(runId, stepId);
  if (direct) return direct;
  const runs = await runTree(store, run);
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

/** `approve --server`: `approvals.decide`, then follow the run tree from where it stood. */
async function approveRemote(
  remote: Remote,
  runId: string,
  stepId: string,
  approved: boolean,
  options: { comment: string | undefined; json: boolean },
): Promise<number> {
  const after = new Map<string, number>();
  let current = await remote.call((c) => c.runs.get.query({ runId }));
  after.set(current.run.id, current.state.seq);
  for (let depth = 0; current.run.parentRunId && depth < 64; depth++) {
    const parentId = current.run.parentRunId;
    current = await remote.call((c) => c.runs.get.query({ runId: parentId }));
    after.set(current.run.id, current.state.seq);
  }
  const rootId = current.run.id;
  const decision = await remote.call((c) =>
    c.approvals.decide.mutate({ runId, stepId, approved, ...(options.comment ? { comment: options.comment } : {}) }),
  );
  const verdict = stderr.style(approved ? 'green' : 'red', approved ? '☑ approved' : '☒ rejected');
  stderr.write(`${verdict} ${stepId} of run ${runId} by ${decision.by}; the server continues it\n`);
  return followRun(remote, rootId, { json: options.json, after });
}
