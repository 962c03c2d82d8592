import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError, defineTool } from 'reins';
import {
  connectMcp,
  createMcpToolServer,
  startMcpHttp,
  type McpBridge,
  type RunningMcpHttp,
} from '@reins/mcp';
import { context, invoke, timed, tool } from './helpers.js';

// A dropped response stream, cut by a TCP proxy between our client bridge and our server
// bridge. 2025-11-25: the server keeps the session's SSE events, the client resumes the
// stream with Last-Event-ID and gets the result — and the tool ran once. 2026-07-28: a
// closed stream means cancel (the spec), so the call fails fast and the tool is aborted.

let runs = 0;
let aborted = 0;
const slow = defineTool({
  name: 'slow_sum',
  description: 'Adds two numbers slowly, reporting progress.',
  input: z.strictObject({ a: z.number(), b: z.number(), ms: z.number().int().min(0).max(5_000) }),
  output: z.object({ sum: z.number() }),
  readOnly: true, // a read-only call is retried after a transport failure: a retry would show as a 2nd run
  timeoutMs: 30_000,
  run: async ({ a, b, ms }, ctx) => {
    runs++;
    for (let i = 1; i <= 4; i++) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms / 4);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          aborted++;
          reject(new ToolError('CANCELLED', 'stopped'));
        });
      });
      ctx.progress?.({ progress: i, total: 4 });
    }
    return { sum: a + b };
  },
});

interface CuttingProxy {
  readonly url: string;
  /** Cuts the connection carrying the next `tools/call`, `afterMs` after it was sent. */
  cutNextCall(afterMs: number): void;
  readonly cuts: number;
  close(): Promise<void>;
}

async function startProxy(targetPort: number): Promise<CuttingProxy> {
  let armed: number | undefined;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    const upstream = tcpConnect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (armed === undefined || !chunk.includes('"method":"tools/call"')) return;
      const afterMs = armed;
      armed = undefined;
      setTimeout(() => {
        cuts++;
        client.destroy();
        upstream.destroy();
      }, afterMs);
    });
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const address = proxy.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    cutNextCall: (afterMs) => void (armed = afterMs),
    get cuts() {
      return cuts;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

let running: RunningMcpHttp;
let proxy: CuttingProxy;
const open: McpBridge[] = [];

beforeAll(async () => {
  const server = createMcpToolServer({ name: 'resume', version: '0.0.1', tools: [slow] });
  // The proxy forwards to 127.0.0.1:<port>, so the Host header names the proxy's port.
  running = await startMcpHttp(server, { authenticate: 'none', allowedHosts: ['127.0.0.1'] });
  proxy = await startProxy(running.port);
});
afterAll(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
  await proxy.close();
  await running.close();
});

describe('a response stream cut mid-call', () => {
  it('2025-11-25: is resumed with Last-Event-ID; the call completes with the right result, the tool ran once', async () => {
    const bridge = await connectMcp({
      name: 'resume',
      transport: { kind: 'http', url: proxy.url },
      protocol: 'legacy',
    });
    open.push(bridge);
    runs = 0;
    aborted = 0;
    const cutsBefore = proxy.cuts;
    proxy.cutNextCall(250);
    const { ctx, progress } = context();
    const { value } = await timed(invoke(tool(bridge, 'slow_sum'), { a: 2, b: 3, ms: 1_000 }, ctx));
    expect(proxy.cuts).toBe(cutsBefore + 1); // the stream was really cut
    expect(value).toEqual({ sum: 5 });
    expect(runs).toBe(1);
    expect(aborted).toBe(0);
    expect(progress.at(-1)?.progress).toBeGreaterThanOrEqual(3); // progress after the cut arrived too
    expect(bridge.status()).toMatchObject({ status: 'up', restarts: 0 });
  });

  it('2026-07-28: a closed stream is a cancel — the tool is aborted, and the read-only call retried once', async () => {
    const bridge = await connectMcp({
      name: 'resume',
      transport: { kind: 'http', url: proxy.url },
      protocol: { pin: '2026-07-28' },
    });
    open.push(bridge);
    runs = 0;
    aborted = 0;
    proxy.cutNextCall(250);
    const { value } = await timed(invoke(tool(bridge, 'slow_sum'), { a: 2, b: 3, ms: 1_000 }));
    expect(value).toEqual({ sum: 5 });
    expect(runs).toBe(2); // not resumed: the cut call was cancelled, a new one made
    expect(aborted).toBe(1);
  });
});
