import { describe, expect, it } from 'vitest';
import { DeterminismError, RunInterrupt, StepFailedError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import type { Json } from '../json.ts';
import { deferred, drain, stepIssues, testFlow, track } from '../test-support/flows.ts';
import { agentFlow, modelInput, run, setup, tools } from '../test-support/llm-bench.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor } from '../test-support/model.ts';

describe('llm schema', () => {
  it('accepts a prompt step and an agent step with tools, schema and retry', () => {
    expect(stepIssues({ id: 'a', type: 'llm', model: 'openai:gpt-4o-mini', prompt: 'hi' })).toEqual([]);
    // Providers a server adds (WEFT_MODEL_PROVIDERS, or models registered in code) validate too.
    expect(stepIssues({ id: 'a', type: 'llm', model: 'groq:llama-3.1-8b-instant', prompt: 'hi' })).toEqual([]);
    expect(
      stepIssues(
        {
          id: 'a',
          type: 'llm',
          model: 'anthropic:claude-x',
          system: 'Be brief',
          messages: '=input.history',
          tools: ['add'],
          maxSteps: 5,
          schema: { type: 'object' },
          retry: { maxAttempts: 2 },
          timeout: '30s',
        },
        { hostTools: ['add'] },
      ),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a model without provider', { model: 'gpt-4o' }, 'steps[0].model', /provider openai, anthropic, local, mock or/],
    ['a provider that is not a prefix', { model: 'Acme AI:x' }, 'steps[0].model', /"<provider>:<model>"/],
    ['a model id with a space', { model: 'acme:fast model' }, 'steps[0].model', /"<provider>:<model>"/],
    ['maxSteps 0', { maxSteps: 0 }, 'steps[0].maxSteps', />=1/],
    ['maxSteps 101', { maxSteps: 101 }, 'steps[0].maxSteps', /<=100/],
    ['messages that are not an expression', { messages: 'hello' }, 'steps[0].messages', /starting with "="/],
    ['tools that are not a list', { tools: 'add' }, 'steps[0].tools', /expected array/],
    ['a misspelled field', { promt: 'x' }, 'steps[0]', /Unrecognized key: "promt"/],
    ['a bad timeout', { timeout: 'soon' }, 'steps[0].timeout', /a duration such as/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 'a', type: 'llm', model: 'mock:echo', prompt: 'hi', ...change });
    expect(issues).toContainEqual({ stepId: 'a', path, message: expect.stringMatching(message) });
  });
});

describe('llm: one model call', () => {
  it('sends the rendered prompt and system and returns the whole conversation', async () => {
    const { host, calls } = setup();
    const output = await run(agentFlow({ system: 'You answer {{ input.q }}' }), host);

    expect(calls).toHaveLength(1);
    expect(calls[0]!.id).toBe('agent/llm#1');
    expect(modelInput(calls[0]!.call)).toEqual({
      model: 'mock:echo',
      system: 'You answer 1+2',
      messages: [{ role: 'user', content: 'What is 1+2?' }],
      tools: [],
      stepId: 'agent',
      turn: 1,
    });
    expect(output).toEqual({
      text: 'What is 1+2?',
      messages: [
        { role: 'user', content: 'What is 1+2?' },
        { role: 'assistant', content: [{ type: 'text', text: 'What is 1+2?' }] },
      ],
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      finishReason: 'stop',
    });
  });

  it('emits the step and its model turn as a child', async () => {
    const { host } = setup();
    await run(agentFlow(), host);
    expect(eventTrail(host.events)).toEqual([
      'started:agent',
      'started:agent/llm#1',
      'completed:agent/llm#1',
      'completed:agent',
    ]);
    expect(host.events[0]).toMatchObject({
      stepType: 'llm',
      input: { model: 'mock:echo', messages: [{ role: 'user', content: 'What is 1+2?' }], tools: [] },
    });
    expect(host.events[1]).toEqual({
      type: 'step.started',
      stepId: 'agent/llm#1',
      stepType: 'model-turn',
      parentId: 'agent',
    });
  });

  it('passes the schema and returns the structured object', async () => {
    const { host, calls } = setup();
    const schema = { type: 'object', properties: { priority: { type: 'string' } } };
    const output = await run(agentFlow({ schema }), host, {
      fixtures: { agent: [{ object: { priority: 'high' } }] },
    });
    expect(modelInput(calls[0]!.call).schema).toEqual(schema);
    expect(output).toMatchObject({ object: { priority: 'high' }, text: '{"priority":"high"}' });
  });

  it('fails the step when messages do not evaluate to a list of messages', async () => {
    const { host, calls } = setup();
    const flow = agentFlow({ prompt: undefined, messages: '=input.q' });
    await expect(run(flow, host)).rejects.toThrow('messages must evaluate to an array of message objects');
    expect(calls).toEqual([]);
    expect(eventTrail(host.events)).toEqual(['started:agent', 'failed:agent']);
  });
});

describe('llm: fixtures', () => {
  it('selects recorded turns by full step path first, then by step id', async () => {
    const { host, calls } = setup();
    const flow = testFlow([
      {
        id: 'each',
        type: 'map',
        items: '=input.items',
        concurrency: 1,
        steps: [{ id: 'ask', type: 'llm', model: 'mock:echo', prompt: '{{ item }}' }],
      },
    ]);
    const output = await interpret(flow, { items: ['a', 'b', 'c'] }, host, {
      fixtures: { 'each[1]/ask': [{ text: 'by path' }], ask: [{ text: 'by id' }] },
    });
    expect(calls.map((call) => [call.id, modelInput(call.call).fixture])).toEqual([
      ['each[0]/ask/llm#1', { text: 'by id' }],
      ['each[1]/ask/llm#1', { text: 'by path' }],
      ['each[2]/ask/llm#1', { text: 'by id' }],
    ]);
    expect((output as { text: string }[]).map((o) => o.text)).toEqual(['by id', 'by path', 'by id']);
  });

  it('sends no fixture for turns past the recorded ones', async () => {
    const { host, calls } = setup();
    await run(agentFlow({ tools: ['add'], maxSteps: 3 }), host, {
      fixtures: { agent: [{ toolCalls: [{ tool: 'add', args: { a: 1, b: 2 } }] }] },
    });
    expect(calls).toHaveLength(3);
    expect(modelInput(calls[2]!.call)).not.toHaveProperty('fixture');
  });
});

describe('llm: retry and timeout policy', () => {
  it('retries model turns and their tool calls 3 times by default', async () => {
    const { host, calls } = setup();
    await run(agentFlow({ tools: ['add'], maxSteps: 2 }), host, {
      fixtures: { agent: [{ toolCalls: [{ tool: 'add', args: { a: 1, b: 2 } }] }, { text: 'done' }] },
    });
    for (const call of calls) {
      expect(call.policy).toEqual({
        retry: { maxAttempts: 3, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 },
      });
    }
  });

  it("passes the step's own retry and timeout", async () => {
    const { host, calls } = setup();
    await run(
      agentFlow({
        retry: { maxAttempts: 5, backoff: 'fixed', initialDelay: '250ms', maxDelay: '2s' },
        timeout: '45s',
      }),
      host,
    );
    expect(calls[0]!.policy).toEqual({
      retry: { maxAttempts: 5, backoff: 'fixed', initialDelayMs: 250, maxDelayMs: 2000 },
      timeoutMs: 45_000,
    });
  });
});

describe('llm: failures and parking', () => {
  it('fails the step when a model turn fails, naming the turn', async () => {
    const { host } = setup({
      model: () => {
        throw new Error('rate limited');
      },
    });
    const error = await run(agentFlow(), host).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'agent', message: 'rate limited' });
    expect(eventTrail(host.events)).toEqual([
      'started:agent',
      'started:agent/llm#1',
      'failed:agent/llm#1',
      'failed:agent',
    ]);
  });

  it('does not feed a determinism error to the model: the run stops instead of diverging', async () => {
    const flow = agentFlow({ tools: ['add'], maxSteps: 3 });
    const fixtures = { agent: [{ toolCalls: [{ tool: 'add', args: { a: 1, b: 2 } }] }, { text: 'done' }] };
    const base = createExecutor({ tools });
    const models: string[] = [];
    const host = new MemoryHost({
      execute: (call, id, policy) => {
        if (call.kind === 'model-turn') models.push(id);
        if (id === 'agent/tool#1.0') throw new DeterminismError(`step '${id}' was recorded with different input`);
        return base(call, id, policy);
      },
    });
    await expect(run(flow, host, { fixtures })).rejects.toBeInstanceOf(DeterminismError);
    expect(models).toEqual(['agent/llm#1']);
  });

  it('lets every tool call of a turn settle before the run parks', async () => {
    // A flow tool (a child run) parks while a host tool is still running: the host tool's
    // result must reach the journal before interpret returns, or it would run on unobserved.
    const gate = deferred<Json>();
    const flow = testFlow(
      [{ id: 'agent', type: 'llm', model: 'mock:echo', prompt: 'go', tools: ['child', 'slow'], maxSteps: 2 }],
      { tools: { child: { description: 'A sub-flow', parameters: { type: 'object' }, flow: 'other' } } },
      { hostTools: ['slow'] },
    );
    const host = new MemoryHost({
      execute: createExecutor({ tools: { slow: () => gate.promise } }),
      spawn: () => {
        throw new RunInterrupt('suspended', 'child run waits for an approval');
      },
    });
    const running = track(
      interpret(flow, null, host, {
        hostTools: { slow: { description: 'Slow', parameters: { type: 'object' } } },
        fixtures: {
          agent: [
            {
              toolCalls: [
                { tool: 'child', args: {} },
                { tool: 'slow', args: {} },
              ],
            },
          ],
        },
      }),
    );
    await drain();
    expect(running.settled).toBe(false);
    gate.resolve('slow result');
    await expect(running.promise).rejects.toBeInstanceOf(RunInterrupt);
    expect(host.journal.get('agent/tool#1.1')).toEqual({ output: 'slow result' });
  });
});
