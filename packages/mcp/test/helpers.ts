import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMcp, type ConnectMcpOptions, type McpBridge } from '@reins/mcp';
import { ToolError, type AnyTool, type ToolContext } from 'reins';

export const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/fault-server.mjs');
export const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

type Progress = Parameters<NonNullable<ToolContext['progress']>>[0];

/** A tool context as the loop would give one, recording progress. */
export function context(signal: AbortSignal = new AbortController().signal) {
  const progress: Progress[] = [];
  const ctx: ToolContext = {
    principal: { id: 'tester' },
    runId: 'run-1',
    actId: 'act-1',
    signal,
    progress: (update) => progress.push(update),
  };
  return { ctx, progress };
}

/** Bridges opened by a test file, closed by its `afterAll` (no child process outlives the suite). */
export function bridges() {
  const open: McpBridge[] = [];
  return {
    async connect(options: Partial<ConnectMcpOptions> = {}): Promise<McpBridge> {
      const bridge = await connectMcp({
        name: 'fixture',
        transport: { kind: 'stdio', command: process.execPath, args: [FIXTURE] },
        ...options,
      });
      open.push(bridge);
      return bridge;
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((b) => b.close()));
    },
  };
}

export function tool(bridge: McpBridge, name: string): AnyTool {
  const found = bridge.tools().find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}; have ${bridge.tools().map((t) => t.name)}`);
  return found;
}

/** Runs a tool as the loop would (input parsed by its schema) and returns the value or the ToolError. */
export async function invoke(t: AnyTool, input: unknown, ctx: ToolContext = context().ctx): Promise<unknown> {
  try {
    return await t.run(t.input.parse(input), ctx);
  } catch (thrown) {
    if (thrown instanceof ToolError) return thrown;
    throw thrown;
  }
}

export async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

export async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
}
