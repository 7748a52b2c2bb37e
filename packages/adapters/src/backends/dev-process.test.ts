import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, startDevProcess, withFreshPortsOnClash } from './dev-process.ts';

describe('withFreshPortsOnClash', () => {
  it('starts again when a real server reports its port taken, and returns the second start', async () => {
    // A port held by someone else: a server told to bind it exits with "address already in use".
    const holder = createServer();
    const taken = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)),
    );
    const ports: number[] = [];
    let started: Awaited<ReturnType<typeof startDevProcess>> | undefined;
    try {
      started = await withFreshPortsOnClash(async () => {
        const port = ports.length === 0 ? taken : await freePort();
        ports.push(port);
        const script = `require('net').createServer((socket) => socket.end('mine')).listen(${port}, '127.0.0.1').on('error', (e) => { console.error(e.message); process.exit(1); })`;
        return startDevProcess({
          name: `node on ${port}`,
          binary: process.execPath,
          args: ['-e', script],
          timeoutMs: 10_000,
          ready: () =>
            new Promise<void>((resolve, reject) => {
              // Ready only when the child answers: the holder accepts connections but says nothing.
              const probe = connect(port, '127.0.0.1');
              const settle = (error?: Error) => {
                clearTimeout(timer);
                probe.destroy();
                if (error) reject(error);
                else resolve();
              };
              const timer = setTimeout(() => settle(new Error('no answer')), 200);
              probe.once('data', () => settle());
              probe.once('error', settle);
            }),
        });
      });
      expect(ports).toHaveLength(2);
      expect(ports[1]).not.toBe(taken);
    } finally {
      // Stopped whatever the assertions found: a failing run leaves no child listening.
      await started?.stop();
      holder.close();
    }
  });

  it('does not retry any other failure, and gives up after the attempts it is given', async () => {
    let calls = 0;
    await expect(
      withFreshPortsOnClash(async () => {
        calls++;
        throw new Error('binary not found');
      }),
    ).rejects.toThrow('binary not found');
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      withFreshPortsOnClash(async () => {
        calls++;
        throw new Error('listen tcp 127.0.0.1:1: bind: address already in use');
      }, 3),
    ).rejects.toThrow('address already in use');
    expect(calls).toBe(3);
  });
});
