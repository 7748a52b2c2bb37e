/** Approve / Reject for a step that waits for a person, with an optional comment. */
import { stepOf } from '@weft/engine';
import { useState } from 'react';
import { useToast } from '../../components/Toasts.tsx';
import { useEditor } from '../../store/editor-hooks.ts';
import { messageOf, trpc } from '../../trpc.ts';

export function ApprovalButtons({ stepId }: { stepId: string }) {
  const runId = useEditor((state) => state.run?.runId ?? null);
  const prompt = useEditor(
    (state) => (state.run ? stepOf(state.run.state, stepId) : undefined)?.approval?.prompt ?? '',
  );
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [comment, setComment] = useState('');
  if (!runId) return null;
  const decide = async (approved: boolean) => {
    setBusy(true);
    try {
      await trpc.approvals.decide.mutate({ runId, stepId, approved, ...(comment ? { comment } : {}) });
    } catch (error) {
      toast(`Could not ${approved ? 'approve' : 'reject'}: ${messageOf(error)}`);
      setBusy(false);
    }
  };
  return (
    <div className="approval nodrag nopan">
      {prompt ? <p className="approval-prompt">{prompt}</p> : null}
      <input
        className="input small"
        aria-label={`Comment on ${stepId}`}
        placeholder="Comment (optional)"
        value={comment}
        onChange={(event) => setComment(event.target.value)}
      />
      <div className="approval-buttons">
        <button
          type="button"
          className="button approve"
          disabled={busy}
          aria-label={`Approve ${stepId}`}
          onClick={() => decide(true)}
        >
          Approve
        </button>
        <button
          type="button"
          className="button reject"
          disabled={busy}
          aria-label={`Reject ${stepId}`}
          onClick={() => decide(false)}
        >
          Reject
        </button>
      </div>
    </div>
  );
}
