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
  model,
  ran,
  run,
  spawned,
  triageShipping,
} from './case-builders.ts';
import { CHANGE_REVIEW_CASES, INVOICE_APPROVAL_CASES } from './cases-approvals.ts';
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
  // The approval cases live in cases-approvals.ts; each group keeps its place in the table,
  // so the tests (registered by name, in this order) are the same.
  ...INVOICE_APPROVAL_CASES,
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
  ...CHANGE_REVIEW_CASES,
  ...MAP_AS_CASES,
];
