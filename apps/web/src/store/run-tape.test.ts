import { type RunEvent, type RunEventInput, runState } from '@weft/engine';
import { describe, expect, it } from 'vitest';
import { RunTape } from './run-tape.ts';

const error = { name: 'Error', message: 'boom' };
const inputs: RunEventInput[] = [
  { type: 'run.started', flowId: 'f', flowVersion: 2, input: { q: 1 }, backend: 'inprocess' },
  { type: 'step.started', stepId: 'agent', stepType: 'llm' },
  { type: 'step.started', stepId: 'agent/llm#1', stepType: 'model-turn', parentId: 'agent' },
  { type: 'step.delta', stepId: 'agent/llm#1', text: 'Hel' },
  { type: 'step.retrying', stepId: 'agent/llm#1', attempt: 1, error, delayMs: 10 },
  { type: 'step.delta', stepId: 'agent/llm#1', text: 'Hi' },
  { type: 'step.completed', stepId: 'agent/llm#1', output: { text: 'Hi' } },
  { type: 'step.started', stepId: 'agent/tool#1.0', stepType: 'tool-call', parentId: 'agent' },
  { type: 'step.completed', stepId: 'agent/tool#1.0', output: 2 },
  { type: 'step.completed', stepId: 'agent', output: { text: 'Hi' } },
  { type: 'step.started', stepId: 'ok', stepType: 'approval' },
  { type: 'approval.requested', stepId: 'ok', prompt: 'Ship?' },
  { type: 'approval.resolved', stepId: 'ok', approved: true, by: 'ada', comment: null, timedOut: false },
  { type: 'step.completed', stepId: 'ok', output: { approved: true } },
  { type: 'run.completed', output: 1 },
];
const events: RunEvent[] = inputs.map((event, index) => ({ ...event, runId: 'r1', seq: index + 1, at: 1000 + index }));

describe('RunTape', () => {
  it.each([1, 2, 3, 4, 100])('gives the reducer’s state after every event (a snapshot every %i)', (every) => {
    const tape = new RunTape(every);
    tape.append(events.slice(0, 5));
    tape.append(events.slice(5));
    for (let index = -1; index < events.length; index++) {
      expect(tape.stateAt(index), `after event ${index}`).toEqual(runState(events.slice(0, index + 1)));
    }
  });

  it('never lets a fold write into a snapshot or into a state it handed out', () => {
    const tape = new RunTape(2);
    tape.append(events);
    const early = tape.stateAt(4);
    const frozen = JSON.stringify(early);
    for (let index = 0; index < events.length; index++) tape.stateAt(index);
    tape.stateAt(events.length - 1);
    expect(JSON.stringify(early)).toBe(frozen);
    expect(tape.stateAt(4)).toEqual(early);
  });

  it('skips events it already holds (a stream resumed after a page)', () => {
    const tape = new RunTape(4);
    expect(tape.append(events.slice(0, 6))).toBe(6);
    expect(tape.append(events.slice(3, 9))).toBe(3);
    expect(tape.length).toBe(9);
    expect(tape.lastSeq).toBe(9);
  });

  it('finds an event by seq, or the one before a gap', () => {
    const tape = new RunTape();
    tape.append(events.filter((event) => event.seq !== 5));
    expect([0, 1, 4, 5, 6, 99].map((seq) => tape.indexOfSeq(seq))).toEqual([-1, 0, 3, 3, 4, 13]);
  });

  it('moves to any event of a 10,000-step run by folding at most one snapshot interval', () => {
    const big: RunEvent[] = [{ ...events[0]!, seq: 1 }];
    for (let step = 0; step < 10_000; step++) {
      big.push({
        type: 'step.started',
        stepId: `s${step}`,
        stepType: 'code',
        runId: 'r1',
        seq: big.length + 1,
        at: big.length,
      });
      big.push({
        type: 'step.completed',
        stepId: `s${step}`,
        output: step,
        runId: 'r1',
        seq: big.length + 1,
        at: big.length,
      });
    }
    const tape = new RunTape();
    tape.append(big);
    const started = performance.now();
    for (const index of [15_000, 3, 20_000, 7_777, 12_345]) {
      expect(tape.stateAt(index).seq).toBe(big[index]!.seq);
    }
    // Generous for a loaded CI box; folding from the start each time would be far slower.
    expect(performance.now() - started).toBeLessThan(500);
    expect(tape.stateAt(big.length - 1)).toEqual(runState(big));
  });
});
