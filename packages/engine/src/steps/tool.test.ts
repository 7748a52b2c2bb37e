import { describe, expect, it } from 'vitest';
import { StepFailedError } from '../errors.ts';
import { interpret } from '../interpreter/interpret.ts';
import { stepIssues, testFlow } from '../test-support/flows.ts';
import { eventTrail, MemoryHost } from '../test-support/memory-host.ts';
import { createExecutor, recordCalls } from '../test-support/model.ts';

const hostTools = { lookup: { description: 'Looks up a customer', parameters: { type: 'object' } } };

function setup() {
  const recorder = recordCalls(
    createExecutor({
      tools: {
        lookup: (args) => ({ found: true, args }),
        broken: () => {
          throw new Error('lookup service is down');
        },
      },
      code: (input) => ({ ran: input.source, args: input.args }),
      http: (request) => ({ status: 200, headers: {}, body: { url: request.url } }),
    }),
  );
  const spawned: { flow: string; input: unknown; id: string }[] = [];
  const host = new MemoryHost({
    execute: recorder.execute,
    spawn: (ref, input, id) => {
      spawned.push({ flow: `${ref.id}@${ref.version}`, input, id });
      return { child: 'output' };
    },
  });
  return { host, calls: recorder.calls, spawned };
}

describe('tool schema', () => {
  it('accepts a tool step with args', () => {
    expect(
      stepIssues({ id: 't', type: 'tool', tool: 'lookup', args: { id: '=input.id' } }, { hostTools: ['lookup'] }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['a missing tool name', { tool: undefined }, 'steps[0].tool', /expected string/],
    ['an empty tool name', { tool: '' }, 'steps[0].tool', />=1 characters/],
    ['args that are not an object', { args: ['x'] }, 'steps[0].args', /expected record/],
    ['an unknown tool', { tool: 'nope' }, 'steps[0].tool', /unknown tool 'nope' \(known tools: lookup\)/],
  ])('rejects %s', (_name, change, path, message) => {
    const issues = stepIssues({ id: 't', type: 'tool', tool: 'lookup', ...change }, { hostTools: ['lookup'] });
    expect(issues).toContainEqual({ stepId: 't', path, message: expect.stringMatching(message) });
  });
});

describe('tool handler', () => {
  it('calls a host tool with the evaluated args and returns its result', async () => {
    const { host, calls } = setup();
    const flow = testFlow(
      [{ id: 'find', type: 'tool', tool: 'lookup', args: { id: '=input.id', note: 'for {{ input.id }}' } }],
      {},
      { hostTools: ['lookup'] },
    );
    const output = await interpret(flow, { id: 42 }, host, { hostTools });

    expect(calls).toEqual([
      {
        id: 'find',
        call: { kind: 'tool', input: { tool: 'lookup', args: { id: 42, note: 'for 42' } } },
        policy: { retry: { maxAttempts: 1, backoff: 'exponential', initialDelayMs: 1000, maxDelayMs: 60_000 } },
      },
    ]);
    expect(output).toEqual({ found: true, args: { id: 42, note: 'for 42' } });
    expect(host.events[0]).toEqual({
      type: 'step.started',
      stepId: 'find',
      stepType: 'tool',
      input: { tool: 'lookup', args: { id: 42, note: 'for 42' } },
    });
    expect(host.events[1]).toEqual({ type: 'step.completed', stepId: 'find', output });
  });

  it("runs a flow tool's source in the code sandbox with only its args", async () => {
    const { host, calls } = setup();
    const flow = testFlow([{ id: 'calc', type: 'tool', tool: 'double', args: { n: 2 } }], {
      tools: { double: { description: 'Doubles', parameters: { type: 'object' }, source: 'return args.n * 2' } },
    });
    await interpret(flow, { secret: 'not for tools' }, host);
    expect(calls[0]!.call).toEqual({
      kind: 'code',
      input: { source: 'return args.n * 2', args: { n: 2 }, input: null, steps: {} },
    });
  });

  it("renders an http tool's templates against the tool's args", async () => {
    const { host, calls } = setup();
    const flow = testFlow([{ id: 'get', type: 'tool', tool: 'weather', args: { city: 'Oslo' } }], {
      tools: {
        weather: {
          description: 'Weather',
          parameters: { type: 'object' },
          http: {
            method: 'POST',
            url: 'https://api.example/{{ args.city }}',
            headers: { 'x-city': '{{ args.city }}' },
            body: { q: '=args.city' },
          },
        },
      },
    });
    const output = await interpret(flow, null, host);
    expect(calls[0]!.call).toEqual({
      kind: 'http',
      input: { method: 'POST', url: 'https://api.example/Oslo', headers: { 'x-city': 'Oslo' }, body: { q: 'Oslo' } },
    });
    expect(output).toEqual({ status: 200, headers: {}, body: { url: 'https://api.example/Oslo' } });
  });

  it("hands on an http tool's opt-out from the Idempotency-Key header", async () => {
    const { host, calls } = setup();
    const flow = testFlow([{ id: 'get', type: 'tool', tool: 'ping', args: {} }], {
      tools: {
        ping: {
          description: 'Ping',
          parameters: { type: 'object' },
          http: { url: 'https://x', idempotencyKey: false },
        },
      },
    });
    await interpret(flow, null, host);
    expect(calls[0]!.call).toEqual({
      kind: 'http',
      input: { method: 'GET', url: 'https://x', headers: {}, idempotencyKey: false },
    });
  });

  it('runs a flow tool backed by another flow as a child run with the args as its input', async () => {
    const { host, spawned, calls } = setup();
    const flow = testFlow([{ id: 'sub', type: 'tool', tool: 'triage', args: { ticket: '=input.t' } }], {
      tools: { triage: { description: 'Triage', parameters: { type: 'object' }, flow: 'triage@2' } },
    });
    const output = await interpret(flow, { t: 'help' }, host);
    expect(calls).toEqual([]);
    expect(spawned).toEqual([{ flow: 'triage@2', input: { ticket: 'help' }, id: 'sub' }]);
    expect(output).toEqual({ child: 'output' });
  });

  it('fails the step, naming it, when the tool fails', async () => {
    const { host } = setup();
    const flow = testFlow([{ id: 'find', type: 'tool', tool: 'broken' }], {}, { hostTools: ['broken'] });
    const error = await interpret(flow, null, host, { hostTools: { broken: hostTools.lookup } }).catch((e) => e);
    expect(error).toBeInstanceOf(StepFailedError);
    expect(error).toMatchObject({ stepId: 'find', message: 'lookup service is down' });
    expect(eventTrail(host.events)).toEqual(['started:find', 'failed:find']);
  });

  it('refuses a tool the host does not register, without calling anything', async () => {
    const { host, calls } = setup();
    const flow = testFlow([{ id: 'find', type: 'tool', tool: 'lookup' }], {}, { hostTools: ['lookup'] });
    await expect(interpret(flow, null, host)).rejects.toThrow("unknown tool 'lookup'");
    expect(calls).toEqual([]);
  });

  it('nests its id under the container that runs it', async () => {
    const { host, calls } = setup();
    const flow = testFlow(
      [
        {
          id: 'route',
          type: 'branch',
          cases: [{ when: '=true', steps: [{ id: 'find', type: 'tool', tool: 'lookup' }] }],
        },
      ],
      {},
      { hostTools: ['lookup'] },
    );
    await interpret(flow, null, host, { hostTools });
    expect(calls.map((call) => call.id)).toEqual(['route/find']);
  });
});
