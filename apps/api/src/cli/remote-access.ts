/**
 * Runs on a running `weft serve` (`--server <url>` / WEFT_SERVER), through its run service over
 * tRPC: the same procedures the editor calls, so a run started from the terminal shows there.
 * The server executes; this command only asks and follows (Ctrl-C stops following).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isFinalStatus, type Json, type RunState } from '@weft/engine';
import { readJsonFile } from './files.ts';
import { CliError, EXIT, stderr } from './output.ts';
import { connect, followRun, type Remote, remoteError } from './remote.ts';
import { getFullRun } from './remote-pages.ts';
import { type RunAccess, RunRefused } from './run-access.ts';

export function openRemoteAccess(url: string, flowsDir?: string): RunAccess {
  const remote: Remote = connect(url);
  return {
    async start({ doc, input, fixtures, backend, handoff }) {
      try {
        const flow = await importWithSubFlows(remote, doc, flowsDir);
        const { runId } = await remote.client.runs.start.mutate({
          flowId: flow.id,
          version: flow.version,
          input,
          ...(fixtures ? { fixtures: fixtures as Record<string, Json[]> } : {}),
          ...(backend !== 'inprocess' ? { backend: backend as 'temporal' | 'inngest' } : {}),
          ...(handoff ? { handoff } : {}),
        });
        return runId;
      } catch (error) {
        const failure = remoteError(url, error);
        const data = (error as { data?: { flowErrors?: unknown[]; issues?: unknown[] } }).data;
        throw new RunRefused(failure.message, { issues: data?.flowErrors ?? data?.issues ?? [] });
      }
    },

    async approve(runId, stepId, decision) {
      const after = new Map<string, number>();
      let current = await getFullRun(remote, runId);
      after.set(current.run.id, current.state.seq);
      for (let depth = 0; current.run.parentRunId && depth < 64; depth++) {
        const parentId = current.run.parentRunId;
        current = await getFullRun(remote, parentId);
        after.set(current.run.id, current.state.seq);
      }
      const decided = await remote.call((c) =>
        c.approvals.decide.mutate({
          runId,
          stepId,
          approved: decision.approved,
          ...(decision.comment ? { comment: decision.comment } : {}),
        }),
      );
      const verdict = stderr.style(
        decision.approved ? 'green' : 'red',
        decision.approved ? '☑ approved' : '☒ rejected',
      );
      stderr.write(`${verdict} ${stepId} of run ${runId} by ${decided.by}; the server continues it\n`);
      return { rootRunId: current.run.id, after };
    },

    async resume(runId) {
      const got = await getFullRun(remote, runId);
      if (isFinalStatus(got.run.status))
        stderr.write(`run ${got.run.id} already ${got.run.status}; nothing to resume\n`);
      else await remote.call((c) => c.runs.resume.mutate({ runId: got.run.id }));
      return { rootRunId: got.run.id, after: new Map([[got.run.id, got.state.seq]]) };
    },

    async cancel(runId) {
      const { run } = await remote.call((c) => c.runs.get.query({ runId }));
      if (isFinalStatus(run.status)) {
        stderr.write(`run ${run.id} already ${run.status}; nothing to cancel\n`);
        return EXIT.ok;
      }
      const result = await remote.call((c) => c.runs.cancel.mutate({ runId: run.id }));
      stderr.write(`${stderr.style('bold', '■ cancelled')} run ${result.runId} (${result.status})\n`);
      return EXIT.ok;
    },

    previewReplay: (runId, request) => remote.call((c) => c.runs.replayPreview.query({ runId, ...request })),
    replay: (runId, request) => remote.call((c) => c.runs.replay.mutate({ runId, ...request })),

    async state(runId) {
      const got = await getFullRun(remote, runId);
      return { run: got.run, state: got.state as RunState };
    },

    follow(rootRunId, { json, decider, after, extra }) {
      if (!decider) throw new CliError('following a run on a server needs a decider');
      return followRun(remote, rootRunId, { json, decider, ...(after ? { after } : {}), ...(extra ? { extra } : {}) });
    },

    async close() {},
  };
}

/**
 * Imports the flow file's document on the server together with the flows it spawns or calls as
 * tools that the server lacks, read from `flowsDir` as `<id>.json` (asked again until nothing is
 * missing, for sub-flows of sub-flows); returns the flow's saved version.
 */
async function importWithSubFlows(
  remote: Remote,
  doc: unknown,
  flowsDir: string | undefined,
): Promise<{ id: string; version: number }> {
  const files = [{ name: 'flow file', json: JSON.stringify(doc) }];
  const id = (doc as { id?: unknown } | null)?.id;
  for (;;) {
    const { imported, missing } = await remote.client.flows.importFiles.mutate({ files });
    const flow = imported.find((candidate) => candidate.id === id) ?? imported[0];
    if (missing.length === 0 && flow) return flow;
    const first = missing[0];
    if (!first) throw new CliError('the server imported nothing');
    if (flowsDir === undefined) {
      throw new CliError(
        `flow '${first.neededBy}' uses flow '${first.flow}', which the server does not have: pass --flows <dir>`,
      );
    }
    for (const need of missing) {
      const file = join(flowsDir, `${need.flow}.json`);
      if (!existsSync(file)) {
        throw new CliError(
          `flow '${need.neededBy}' uses flow '${need.flow}', which neither the server nor ${flowsDir} has (no ${file})`,
        );
      }
      files.push({ name: `${need.flow}.json`, json: JSON.stringify(await readJsonFile(file, 'flow file')) });
    }
  }
}
