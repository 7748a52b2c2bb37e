/**
 * Inngest as a RunBackend: an Inngest client (the dev server on INNGEST_BASE_URL with
 * INNGEST_DEV, or Inngest Cloud / a self-hosted server with event and signing keys), the
 * generic function, and the Node request handler that serves it at /api/inngest.
 *
 * A decision is recorded in Weft's store first and then sent as an event. Inngest matches an
 * event only against a wait that already exists, and the wait is registered only once the
 * function's response reaches Inngest (a request lost with a killed server is retried much
 * later), so the backend itself sends every recorded decision a run has not taken again, every
 * 2 s while it is open (`redeliverDecisions`), and the function also checks the store before
 * it waits. Its hosts (the API, a CLI command) need not know.
 */

import type { RequestListener } from 'node:http';
import { isFinalStatus } from '@weft/engine';
import { Inngest, type InngestFunction } from 'inngest';
import { serve } from 'inngest/node';
import type { RunBackend } from '../backends/run-backend.ts';
import { recordCancelled } from '../backends/run-rows.ts';
import type { RunRecord, RunStore } from '../store/types.ts';
import { createWeftFunction, type WeftFunctionDeps } from './function.ts';
import {
  CANCEL_EVENT,
  DECISION_EVENT,
  type DecisionEventData,
  INNGEST_APP_ID,
  RUN_EVENT,
  type RunEventData,
} from './types.ts';

/** Where the API serves the function. */
export const INNGEST_SERVE_PATH = '/api/inngest';
/** A recorded decision the run has not taken this long after it was made is sent again. */
const DECISION_RESEND_AFTER_MS = 2_000;

export interface InngestBackendOptions {
  /** The Inngest server: the dev server's URL (e.g. http://127.0.0.1:8288); absent means Inngest Cloud. */
  baseUrl?: string;
  /** Talk to a dev server: no keys, no request signing. */
  isDev: boolean;
  eventKey?: string;
  signingKey?: string;
  store: RunStore;
  /** Serve the function from this process: the URL Inngest calls (origin + INNGEST_SERVE_PATH). */
  serve?: WeftFunctionDeps & { origin?: string };
  /** How often undelivered decisions are sent again; default 2 s, 0 turns it off (tests). */
  redeliverEveryMs?: number;
}

export interface InngestBackend extends RunBackend {
  readonly name: 'inngest';
  readonly client: Inngest;
  /** The request handler for INNGEST_SERVE_PATH; present when the backend serves the function. */
  readonly handler: RequestListener | undefined;
  /** Tells the Inngest server where this process serves the function (an app sync). */
  register(origin: string): Promise<void>;
  /** Sends again each decision recorded in the store that its run (or any open run) has not taken yet. */
  redeliverDecisions(runId?: string): Promise<void>;
}

export function openInngestBackend(options: InngestBackendOptions): InngestBackend {
  const client = new Inngest({
    id: INNGEST_APP_ID,
    isDev: options.isDev,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.eventKey ? { eventKey: options.eventKey } : {}),
    ...(options.signingKey ? { signingKey: options.signingKey } : {}),
    logger: process.env.WEFT_INNGEST_DEBUG ? console : quietLogger,
    // With checkpointing (the v4 default) the dev server (v1.12.1) never resumes a parent's
    // step.invoke once the child finishes; plain step-by-step execution does.
    checkpointing: false,
  });
  const { store } = options;
  const redeliverEveryMs = options.redeliverEveryMs ?? DECISION_RESEND_AFTER_MS;
  let fn: InngestFunction.Any | undefined;
  let handler: RequestListener | undefined;
  if (options.serve) {
    fn = createWeftFunction(client, options.serve);
    handler = serve({
      client,
      functions: [fn],
      servePath: INNGEST_SERVE_PATH,
      ...(options.serve.origin ? { serveOrigin: options.serve.origin } : {}),
    });
  }
  const sendDecision = (data: DecisionEventData) => client.send({ name: DECISION_EVENT, data });

  const backend: InngestBackend = {
    name: 'inngest',
    client,
    handler,
    async start(run) {
      // The function reads the pinned flow, input, fixtures and seed (the journal) from the store.
      const data: RunEventData = {
        runId: run.runId,
        flowId: run.flow.id,
        flowVersion: run.flow.version ?? 1,
        seeded: (run.seed?.length ?? 0) > 0,
      };
      // The event id is the run id: Inngest drops a second start of the same run.
      await client.send({ id: run.runId, name: RUN_EVENT, data });
    },
    async decide(runId, decision) {
      const data: DecisionEventData = { runId, ...decision, at: new Date().toISOString() };
      await sendDecision(data);
    },
    async redeliverDecisions(runId) {
      const now = Date.now();
      const open = runId
        ? [await store.getRun(runId)].filter((run) => run !== undefined && !isFinalStatus(run.status))
        : await store.listRuns({ backend: 'inngest', status: ['running', 'waiting'], limit: 1000 });
      for (const run of open as RunRecord[]) {
        const decided = (await store.listApprovals({ runId: run.id })).filter(
          (approval) =>
            (approval.status === 'approved' || approval.status === 'rejected') &&
            now - (approval.decidedAt ?? now) >= DECISION_RESEND_AFTER_MS,
        );
        if (decided.length === 0) continue;
        const events = await store.readEvents(run.id);
        for (const approval of decided) {
          if (events.some((event) => event.type === 'approval.resolved' && event.stepId === approval.stepId)) continue;
          await sendDecision({
            runId: run.id,
            stepId: approval.stepId,
            approved: approval.status === 'approved',
            by: approval.decidedBy,
            comment: approval.comment,
            at: new Date(approval.decidedAt ?? now).toISOString(),
          });
        }
      }
    },
    async cancel(runId) {
      // The run and its children: each is its own Inngest run.
      const ids = [runId];
      for (let i = 0; i < ids.length; i++)
        for (const child of await store.listRuns({ parentRunId: ids[i]! })) ids.push(child.id);
      for (const id of ids) {
        const run = await store.getRun(id);
        if (!run || isFinalStatus(run.status)) continue;
        await client.send({ name: CANCEL_EVENT, data: { runId: id } });
        // Inngest stops the function between steps and runs none of its code: record the end here.
        await recordCancelled(store, id);
      }
    },
    // Inngest resumes its runs by itself; what it can miss is a decision sent before the wait.
    resume: (runId) => backend.redeliverDecisions(runId),
    link: () => undefined,
    async register(origin) {
      if (!handler) throw new Error('this Inngest backend does not serve the function');
      const response = await fetch(new URL(INNGEST_SERVE_PATH, origin), { method: 'PUT' });
      if (!response.ok)
        throw new Error(`syncing the Weft app with Inngest failed: ${response.status} ${await response.text()}`);
    },
    async close() {
      clearInterval(redelivery);
    },
  };
  // Unref'd: an open backend never keeps a CLI command alive by itself.
  let redelivering: Promise<void> | undefined;
  const redelivery =
    redeliverEveryMs > 0
      ? setInterval(() => {
          if (redelivering) return; // the last round is still sending
          redelivering = backend
            .redeliverDecisions()
            .catch(() => undefined) // a lost round is tried again on the next tick
            .finally(() => {
              redelivering = undefined;
            });
        }, redeliverEveryMs)
      : undefined;
  redelivery?.unref();
  return backend;
}

/** The SDK's own logging goes nowhere: Weft reports runs through its events and logs. */
const quietLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};
