/**
 * Conformance cases for human approvals: the invoice sign-off (approved, rejected, not needed
 * under the threshold, and a code step failing before it is reached) and the change review,
 * whose approval window times out and decides by itself unless someone objects in time.
 * Approvals are where backends differ most (signals, events, a parked row), so these pin that
 * a decision, or its absence, ends every backend's run the same way.
 */
import { around, type ConformanceCase, failed, failedAround, invoiceInput, model, ran, run } from './case-builders.ts';

export const INVOICE_APPROVAL_CASES: readonly ConformanceCase[] = [
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
];

export const CHANGE_REVIEW_CASES: readonly ConformanceCase[] = [
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
];
