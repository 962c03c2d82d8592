import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from 'reins';
import type { McpBridge } from '@reins/mcp';
import { EVERYTHING, bridges, context, freePort, invoke, timed, tool, until } from './helpers.js';

// Interop with an independent peer: the reference "everything" server (SDK 1.x, 2025-11-25).
const opened = bridges();
let httpServer: ChildProcess | undefined;
let httpUrl = '';

beforeAll(async () => {
  const port = await freePort();
  // It listens on all interfaces: test-only. We talk to it over 127.0.0.1.
  httpServer = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  httpServer.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await until(() => stderr.includes('listening on port'), 10_000);
  httpUrl = `http://127.0.0.1:${port}/mcp`;
});

afterAll(async () => {
  await opened.closeAll();
  if (httpServer !== undefined && httpServer.exitCode === null) {
    const exited = once(httpServer, 'exit');
    httpServer.kill('SIGKILL');
    await exited;
  }
});

const transports = {
  stdio: () => ({ kind: 'stdio' as const, command: process.execPath, args: [EVERYTHING, 'stdio'] }),
  'Streamable HTTP': () => ({ kind: 'http' as const, url: httpUrl }),
};

describe.each(Object.entries(transports))('server-everything over %s', (label, transport) => {
  let bridge: McpBridge;
  beforeAll(async () => {
    bridge = await opened.connect({ name: 'everything', transport: transport(), prefix: 'ev_' });
  });

  it('lists its tools and calls echo and a structured tool', async () => {
    expect(bridge.status()).toMatchObject({ status: 'up', protocolVersion: '2025-11-25' });
    const names = bridge.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['ev_echo', 'ev_get-sum', 'ev_trigger-long-running-operation']),
    );
    const echo = tool(bridge, 'ev_echo');
    expect(echo.readOnly).toBe(true);
    expect(await invoke(echo, { message: 'hello' })).toBe('Echo: hello');
    expect(echo.input.safeParse({ message: 3 }).success).toBe(false);
    expect(echo.input.safeParse({ message: 'a', extra: 1 }).success).toBe(false);
    expect(await invoke(tool(bridge, 'ev_get-structured-content'), { location: 'Chicago' })).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  it('forwards progress of a long-running tool', async () => {
    const { ctx, progress } = context();
    const result = await invoke(
      tool(bridge, 'ev_trigger-long-running-operation'),
      { duration: 0.4, steps: 4 },
      ctx,
    );
    expect(result).toMatch(/Long running operation completed/);
    expect(progress.slice(0, 3)).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 4 })));
  });

  it('cancels a long call through the signal at once', async () => {
    const controller = new AbortController();
    const { ctx, progress } = context(controller.signal);
    const pending = timed(
      invoke(tool(bridge, 'ev_trigger-long-running-operation'), { duration: 10, steps: 20 }, ctx),
    );
    await until(() => progress.length > 0);
    controller.abort();
    const { value, ms } = await pending;
    expect(value).toBeInstanceOf(ToolError);
    expect((value as ToolError).code).toBe('CANCELLED');
    expect(ms).toBeLessThan(2_000);
    if (label === 'stdio') {
      // It ignores cancellation (keeps reporting progress): the process is stopped and restarted.
      await until(() => bridge.status().restarts === 1);
    } else {
      expect(bridge.status().restarts).toBe(0); // a remote server cannot be signalled
    }
    expect(await invoke(tool(bridge, 'ev_echo'), { message: 'still here' })).toBe('Echo: still here');
  });
});
