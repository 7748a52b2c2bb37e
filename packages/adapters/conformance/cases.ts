/**
 * The conformance cases: each runs one example flow (examples/<flow>.json) with an input,
 * recorded model turns and approval decisions, and states what every backend must produce —
 * the final status, the exact output, the error, and the run's event sequence (compared by
 * the rule in events.ts: exact order where the flow is sequential, per-lane order inside
 * `concurrent(…)` groups).
 */
import type { Json } from '@weft/engine';
import {
  around,
  type ConformanceCase,
  failed,
  failedAround,
  failingTool,
  invoiceInput,
  model,
  ran,
  run,
  spawned,
  triageShipping,
} from './case-builders.ts';
import { MAP_AS_CASES } from './cases-map-as.ts';
import { concurrent } from './events.ts';
import { example } from './examples.ts';

export type { ConformanceCase } from './case-builders.ts';

export const CASES: readonly ConformanceCase[] = [
  run(
    'support-triage',
    'a high-priority billing ticket is escalated (structured output, branch, continued conversation)',
    {},
    {
      status: 'completed',
      output: {
        category: 'billing',
        priority: 'high',
        queue: 'urgent',
        page: true,
        reply:
          "Hi Priya, sorry about the double charge on order #4411: the duplicate payment will be refunded within one business day. We'll email you once it's done. — The Support Team",
        conversationLength: 4,
      },
      events: [
        'run.started',
        ...model('classify'),
        ...around('route', ran('route/escalate')),
        ...model('draft'),
        ...model('shorten'),
        'run.completed',
      ],
    },
  ),
  run(
    'support-triage',
    'a routine ticket takes the else arm',
    {
      input: { customer: 'Leo', ticket: 'When will my order #5120 ship? No rush.' },
      fixtures: triageShipping,
    },
    {
      status: 'completed',
      output: {
        category: 'shipping',
        priority: 'normal',
        queue: 'general',
        page: false,
        reply: 'Hi Leo, order #5120 shipped today and should arrive Thursday. — The Support Team',
        conversationLength: 4,
      },
      events: [
        'run.started',
        ...model('classify'),
        ...around('route', ran('route/general')),
        ...model('draft'),
        ...model('shorten'),
        'run.completed',
      ],
    },
  ),
  run(
    'research-agent',
    'an agent loop over three turns with http, code and sub-flow tools, then a structured answer',
    {},
    {
      status: 'completed',
      output: {
        answer: {
          answer: 'Installed solar capacity grew by 35.7% in 2023, from 1177 GW to 1597 GW.',
          growthPercent: 35.7,
          sources: ['https://example.org/iea/renewables-2023'],
        },
        toolCalls: 3,
        firstHit: 'Renewables 2023: solar capacity',
        computed: 35.7,
        summary: 'Installed solar PV capacity reached 1597 GW in 2023, up from 1177 GW in 2022.',
      },
      events: [
        'run.started',
        ...around('research', [
          ...ran('research/llm#1'),
          ...ran('research/tool#1.0'),
          ...ran('research/llm#2'),
          // Two tool calls in one turn run concurrently; the second is a sub-flow (a child run).
          concurrent(ran('research/tool#2.0'), spawned('research/tool#2.1')),
          ...ran('research/llm#3'),
        ]),
        ...model('answer'),
        'run.completed',
      ],
    },
  ),
  run(
    'research-agent',
    'a failing tool call goes back to the model instead of failing the run',
    { fixtures: failingTool },
    {
      status: 'completed',
      output: {
        answer: { answer: 'It grew by 50%.', growthPercent: 50, sources: [] },
        toolCalls: 2,
        firstHit: null,
        computed: 50,
        summary: null,
      },
      events: [
        'run.started',
        ...around('research', [
          ...ran('research/llm#1'),
          ...failed('research/tool#1.0'),
          ...ran('research/llm#2'),
          ...ran('research/tool#2.0'),
          ...ran('research/llm#3'),
        ]),
        ...model('answer'),
        'run.completed',
      ],
    },
  ),
  run(
    'summarize-text',
    'code, then mock:echo without fixtures',
    {},
    {
      status: 'completed',
      output: { summary: 'Durable execution means a crash loses nothing.', words: 15 },
      events: ['run.started', ...ran('stats'), ...model('tldr'), 'run.completed'],
    },
  ),
  run(
    'doc-summary',
    'map over documents, reduce in code, digest (mock:echo, no fixtures)',
    {},
    {
      status: 'completed',
      output: {
        bullets: [
          '1. Postmortem 12: The queue stalled for 14 minutes because a lease was never renewed',
          '2. Q3 roadmap: Ship the Temporal adapter before the Inngest one',
          '3. On-call handbook: Page the secondary after 15 minutes without an acknowledgement',
        ],
        words: 35,
        digest:
          'Digest for the platform team (3 documents): 1. Postmortem 12: The queue stalled for 14 minutes because a lease was never renewed 2. Q3 roadmap: Ship the Temporal adapter before the Inngest one 3. On-call handbook: Page the secondary after 15 minutes without an acknowledgement',
      },
      events: [
        'run.started',
        ...around('each', [
          concurrent(model('each[0]/summarize'), model('each[1]/summarize'), model('each[2]/summarize')),
        ]),
        ...ran('reduce'),
        ...model('digest'),
        'run.completed',
      ],
    },
  ),
  run(
    'invoice-approval',
    'an invoice over the threshold is approved',
    { approvals: { 'gate/signoff': { approved: true, by: 'dana', comment: 'within the Q2 budget' } } },
    {
      status: 'completed',
      output: {
        invoice: 'INV-2024-0193',
        status: 'approved',
        approvedBy: 'dana',
        comment: 'within the Q2 budget',
        totals: { net: 1815, vat: 363, gross: 2178 },
        booking: { ledgerRef: 'AP-INV-2024-0193', amount: 2178, currency: 'EUR' },
      },
      events: [
        'run.started',
        ...ran('validate'),
        ...ran('tax'),
        ...ran('totals'),
        ...around('gate', [
          'step.started:gate/signoff',
          'approval.requested:gate/signoff',
          'approval.resolved:gate/signoff',
          'step.completed:gate/signoff',
          ...around('gate/decision', ran('gate/decision/approved')),
        ]),
        ...ran('book'),
        'run.completed',
      ],
    },
  ),
  run(
    'invoice-approval',
    'a rejected approval fails the run with the reason',
    { approvals: { 'gate/signoff': { approved: false, by: 'dana', comment: 'over the Q2 budget' } } },
    {
      status: 'failed',
      output: null,
      error: {
        stepId: 'gate/decision/rejected',
        message: 'Invoice INV-2024-0193 was rejected by dana: over the Q2 budget',
      },
      events: [
        'run.started',
        ...ran('validate'),
        ...ran('tax'),
        ...ran('totals'),
        ...failedAround('gate', [
          'step.started:gate/signoff',
          'approval.requested:gate/signoff',
          'approval.resolved:gate/signoff',
          'step.completed:gate/signoff',
          ...failedAround('gate/decision', failed('gate/decision/rejected')),
        ]),
        'run.failed',
      ],
    },
  ),
  run(
    'invoice-approval',
    'an invoice under the threshold needs no approval',
    {
      input: {
        ...invoiceInput,
        invoice: {
          ...invoiceInput.invoice,
          id: 'INV-2024-0201',
          lines: [{ description: 'Printer paper', qty: 10, unitPrice: 4.99 }],
        },
      },
    },
    {
      status: 'completed',
      output: {
        invoice: 'INV-2024-0201',
        status: 'auto-approved',
        approvedBy: 'policy',
        comment: 'under the approval threshold',
        totals: { net: 49.9, vat: 9.98, gross: 59.88 },
        booking: { ledgerRef: 'AP-INV-2024-0201', amount: 59.88, currency: 'EUR' },
      },
      events: [
        'run.started',
        ...ran('validate'),
        ...ran('tax'),
        ...ran('totals'),
        ...around('gate', ran('gate/auto')),
        ...ran('book'),
        'run.completed',
      ],
    },
  ),
  run(
    'invoice-approval',
    'a code step that throws fails the run',
    { input: { ...invoiceInput, invoice: { ...invoiceInput.invoice, id: 'INV-2024-0202', lines: [] } } },
    {
      status: 'failed',
      output: null,
      error: { stepId: 'validate', message: 'invoice INV-2024-0202 has no line items' },
      events: ['run.started', ...failed('validate'), 'run.failed'],
    },
  ),
  run(
    'status-poll',
    'a flaky submit is retried, then the job is polled until done (loop, sleep, http)',
    {},
    {
      status: 'completed',
      output: { job: 'sales-q3', status: 'done', polls: 3, rows: 1284, file: 'reports/sales-q3.csv' },
      events: [
        'run.started',
        'step.started:submit',
        'step.retrying:submit@1',
        'step.completed:submit',
        ...around(
          'poll',
          [0, 1, 2].flatMap((i) => [...ran(`poll[${i}]/wait`), ...ran(`poll[${i}]/check`)]),
        ),
        ...around('outcome', ran('outcome/result')),
        'run.completed',
      ],
    },
  ),
  run(
    'status-poll',
    'a job that never finishes fails after the last poll',
    { input: { ...(example('status-poll').input as Record<string, Json>), jobId: 'stuck' } },
    {
      status: 'failed',
      output: null,
      error: { stepId: 'outcome/gaveUp', message: 'job stuck is still running after 4 polls' },
      events: [
        'run.started',
        'step.started:submit',
        'step.retrying:submit@1',
        'step.completed:submit',
        ...around(
          'poll',
          [0, 1, 2, 3].flatMap((i) => [...ran(`poll[${i}]/wait`), ...ran(`poll[${i}]/check`)]),
        ),
        ...failedAround('outcome', failed('outcome/gaveUp')),
        'run.failed',
      ],
    },
  ),
  run(
    'content-moderation',
    'a clean post is published with PII redacted (parallel checks)',
    {},
    {
      status: 'completed',
      output: {
        id: 'p-1042',
        status: 'published',
        text: 'Loved the meetup yesterday! Slides are up; write to [email removed] if you want the recording.',
        emailsRemoved: 1,
        toxicityScore: 0.03,
      },
      events: [
        'run.started',
        ...around('checks', [
          concurrent(model('checks.model/toxicity'), ran('checks.heuristics/spam'), ran('checks.privacy/pii')),
        ]),
        ...ran('verdict'),
        ...around('decide', ran('decide/publish')),
        'run.completed',
      ],
    },
  ),
  run(
    'content-moderation',
    'a toxic spam post is rejected by the fail step',
    {
      input: {
        post: {
          id: 'p-1043',
          author: 'promo_bot',
          text: 'BUY NOW!!! CHEAP PILLS http://a.example http://b.example http://c.example YOU IDIOTS',
        },
      },
      fixtures: { toxicity: [{ object: { toxic: true, score: 0.91, reason: 'insults readers' } }] },
    },
    {
      status: 'failed',
      output: null,
      error: { stepId: 'decide/reject', message: 'Post p-1043 was rejected (toxic: insults readers; spam: 3 links)' },
      events: [
        'run.started',
        ...around('checks', [
          concurrent(model('checks.model/toxicity'), ran('checks.heuristics/spam'), ran('checks.privacy/pii')),
        ]),
        ...ran('verdict'),
        ...failedAround('decide', failed('decide/reject')),
        'run.failed',
      ],
    },
  ),
  run(
    'weekly-digest',
    'one child run per article, two at a time (http, map, spawn, code)',
    {},
    {
      status: 'completed',
      output: {
        articles: 3,
        markdown: [
          '# Digest, week 2024-W19',
          '',
          '- **Weft 0.1 ships**: The first release runs flows in process with SQLite. (14 words)',
          '- **Durable agents**: Each model call is a checkpointed step. (16 words)',
          '- **Offline tests**: Recorded model turns replace the provider. (13 words)',
        ].join('\n'),
      },
      events: [
        'run.started',
        ...ran('fetch'),
        ...ran('pick'),
        ...around('each', [
          concurrent(spawned('each[0]/summarize'), spawned('each[1]/summarize'), spawned('each[2]/summarize')),
        ]),
        ...ran('assemble'),
        'run.completed',
      ],
    },
  ),
  run(
    'change-review',
    'an approval nobody answers times out and approves itself (onTimeout: approve)',
    // The window is 1s: the run must end on its own well within 5s, with nobody deciding.
    { timeoutMs: 5_000 },
    {
      status: 'completed',
      output: { change: 'CHG-311', status: 'scheduled', risk: 'low', approvedBy: 'timeout' },
      events: [
        'run.started',
        ...model('assess'),
        'step.started:window',
        'approval.requested:window',
        'approval.resolved:window',
        'step.completed:window',
        ...around('gate', ran('gate/ship')),
        'run.completed',
      ],
    },
  ),
  run(
    'change-review',
    'an objection inside the window blocks the change',
    { approvals: { window: { approved: false, by: 'sre-oncall', comment: 'freeze until Monday' } } },
    {
      status: 'failed',
      output: null,
      error: { stepId: 'gate/blocked', message: 'Change CHG-311 was blocked by sre-oncall: freeze until Monday' },
      events: [
        'run.started',
        ...model('assess'),
        'step.started:window',
        'approval.requested:window',
        'approval.resolved:window',
        'step.completed:window',
        ...failedAround('gate', failed('gate/blocked')),
        'run.failed',
      ],
    },
  ),
  ...MAP_AS_CASES,
];
