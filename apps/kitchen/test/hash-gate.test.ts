import { describe, expect, it } from 'vitest';
import { createHashGate } from '../src/auth/hash-gate.js';
import { normalizeAddress } from '../src/http/client-address.js';

/** A task the test ends by hand. */
function task() {
  let end!: (value: string) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<string>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { run: () => promise, end, fail };
}

describe('the password-check gate (issue 16.4)', () => {
  it('runs up to `concurrency` at once, queues up to `queue` (FIFO), refuses the rest synchronously', async () => {
    const gate = createHashGate({ concurrency: 2, queue: 2, queuePerKey: 2 });
    const tasks = Array.from({ length: 5 }, task);
    const order: number[] = [];
    const results = tasks.map((t, i) =>
      gate.run('a', () => {
        order.push(i);
        return t.run();
      }),
    );
    expect(results[4]).toBeUndefined(); // two running, two waiting: refused at once
    expect([gate.running, gate.waiting, order]).toEqual([2, 2, [0, 1]]);
    tasks[1]?.end('one');
    expect(await results[1]).toBe('one');
    expect(order).toEqual([0, 1, 2]); // the first waiter took the freed slot
    tasks[0]?.fail(new Error('boom')); // a failure frees its slot too
    await expect(results[0]).rejects.toThrow('boom');
    expect(order).toEqual([0, 1, 2, 3]);
    expect([gate.running, gate.waiting]).toEqual([2, 0]);
    tasks[2]?.end('two');
    tasks[3]?.end('three');
    expect(await Promise.all([results[2], results[3]])).toEqual(['two', 'three']);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('one key holds at most `queuePerKey` of the queue, so another key still gets in line', async () => {
    const gate = createHashGate({ concurrency: 1, queue: 4, queuePerKey: 2 });
    const held = task();
    const first = gate.run('flood', held.run);
    const queued = [gate.run('flood', () => Promise.resolve(1)), gate.run('flood', () => Promise.resolve(2))];
    expect(gate.run('flood', () => Promise.resolve(3))).toBeUndefined();
    const other = gate.run('someone', () => Promise.resolve('in'));
    expect(other).toBeDefined();
    held.end('done');
    expect(await Promise.all([first, ...queued, other])).toEqual(['done', 1, 2, 'in']);
    // The key's places are back once its waiters ran.
    expect(gate.run('flood', () => Promise.resolve(4))).toBeDefined();
  });

  it('a task that throws synchronously is a rejection, and frees its slot', async () => {
    const gate = createHashGate({ concurrency: 1, queue: 0 });
    await expect(
      gate.run('a', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    expect(gate.running).toBe(0);
  });

  it('a freed slot goes to the key running the fewest, so a login from elsewhere passes a flood', async () => {
    const gate = createHashGate({ concurrency: 2, queue: 8, queuePerKey: 4 });
    const flood = Array.from({ length: 6 }, task);
    const started: string[] = [];
    const run = (key: string, t: ReturnType<typeof task>, name: string) =>
      gate.run(key, () => {
        started.push(name);
        return t.run();
      });
    const floods = flood.map((t, i) => run('flood', t, `f${i}`)); // 2 running, 4 waiting
    const other = task();
    const mine = run('member', other, 'member'); // waits behind four of the flood's
    expect(started).toEqual(['f0', 'f1']);
    flood[0]?.end('x');
    await floods[0];
    expect(started).toEqual(['f0', 'f1', 'member']); // not f2: 'flood' runs one, 'member' none
    flood[1]?.end('x');
    await floods[1];
    expect(started).toEqual(['f0', 'f1', 'member', 'f2']); // then FIFO
    other.end('in');
    expect(await mine).toBe('in');
    for (const t of flood) t.end('x');
    await Promise.all(floods);
    expect(started).toEqual(['f0', 'f1', 'member', 'f2', 'f3', 'f4', 'f5']);
  });

  it('refuses sizes that make no sense', () => {
    expect(() => createHashGate({ concurrency: 0 })).toThrow(RangeError);
    expect(() => createHashGate({ queue: -1 })).toThrow(RangeError);
    expect(() => createHashGate({ queuePerKey: 1.5 })).toThrow(RangeError);
  });
});

describe('client addresses for the login backoff', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::7', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s → %s (one key per IPv4 address, per IPv6 /64)', (address, key) => {
    expect(normalizeAddress(address)).toBe(key);
  });
});
