import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from 'reins';
import { bridges, invoke, tool, until } from './helpers.js';

const fixture = bridges();
afterAll(() => fixture.closeAll());

// README: "A read-only call is retried once after a transport failure" and "the first reconnect
// after a loss starts at once, so a call made right after a crash waits for that attempt". It did
// only for the first loss since start-up: after a later crash, even one after calls had worked
// again, the retry (and every call made right after the crash) failed as `down` until the
// backoff timer fired.
describe('reconnect after a later loss', () => {
  it('a read-only call is retried after the server died under it a second time', async () => {
    // A long backoff makes the difference visible; the first reconnect after a loss must not wait for it.
    const bridge = await fixture.connect({ reconnect: { initialDelayMs: 5_000, maxDelayMs: 10_000 } });
    const slowRead = tool(bridge, 'slow_read');

    const first = bridge.status().pid as number;
    const pending1 = invoke(slowRead, { ms: 400 });
    setTimeout(() => process.kill(first, 'SIGKILL'), 100);
    expect(await pending1).toBe('waited 400 ms'); // the first loss: retried on the new process
    expect(bridge.status().restarts).toBe(1);

    // Healthy again; calls work (the backoff starts afresh).
    expect(await invoke(tool(bridge, 'lookup'), { key: 'a' })).toEqual({ key: 'a', value: 42 });
    await until(() => bridge.status().status === 'up');

    const second = bridge.status().pid as number;
    const pending2 = invoke(slowRead, { ms: 400 });
    setTimeout(() => process.kill(second, 'SIGKILL'), 100);
    const result = await pending2;
    expect(result instanceof ToolError ? `${result.code}: ${result.message}` : result).toBe('waited 400 ms');
  });
});
