import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, ToolError } from 'reins';
import { scriptModel } from 'reins/testing';
import type { ConnectMcpOptions, McpBridge } from '@reins/mcp';
import { bridges, context, invoke, timed, tool, until } from './helpers.js';
import {
  buildMcp,
  rawClient,
  SERVER_FIXTURE,
  startHttpFixture,
  stop,
  toolError,
  type Negotiation,
} from './support/tool-server-process.js';

// Our client bridge against our server bridge, over stdio and Streamable HTTP, both revisions.
const abortLog = join(mkdtempSync(join(tmpdir(), 'reins-mcp-')), 'aborts.log');
const env = { REINS_FIXTURE_LOG: abortLog };
const opened = bridges();
let http: { url: string; child: ChildProcess } | undefined;

beforeAll(async () => {
  buildMcp();
  writeFileSync(abortLog, '');
  http = await startHttpFixture(env);
}, 120_000);

afterAll(async () => {
  await opened.closeAll();
  await stop(http?.child);
});

const aborts = (): number => readFileSync(abortLog, 'utf8').split('\n').filter(Boolean).length;

const cases: [string, Negotiation, () => ConnectMcpOptions['transport'], string, string][] = [
  ['stdio', 'auto', () => stdio(), 'stdio-owner', '2026-07-28'],
  ['stdio', 'legacy', () => stdio(), 'stdio-owner', '2025-11-25'],
  ['Streamable HTTP', 'auto', () => httpWith('token-alice'), 'alice', '2026-07-28'],
  ['Streamable HTTP', 'legacy', () => httpWith('token-alice'), 'alice', '2025-11-25'],
];

function stdio(): ConnectMcpOptions['transport'] {
  return { kind: 'stdio', command: process.execPath, args: [SERVER_FIXTURE, 'stdio'], env };
}

function httpWith(token: string): ConnectMcpOptions['transport'] {
  return { kind: 'http', url: http?.url ?? '', headers: { authorization: `Bearer ${token}` } };
}

describe.each(cases)(
  'client bridge ↔ server bridge over %s (%s)',
  (label, mode, transport, owner, revision) => {
    let bridge: McpBridge;
    beforeAll(async () => {
      bridge = await opened.connect({ name: 'kitchen', transport: transport(), protocol: mode });
    });

    it('lists the tools with their read-only flags and calls one as the authenticated principal', async () => {
      expect(bridge.status()).toMatchObject({ status: 'up', protocolVersion: revision });
      const names = bridge.tools().map((t) => `${t.name}:${t.readOnly}`);
      expect(names.sort()).toEqual(['add_note:false', 'lookup_pantry:true', 'slow_count:true']);
      const result = await invoke(tool(bridge, 'lookup_pantry'), { item: 'salt' });
      expect(result).toMatchObject({ item: 'salt', quantity: 4, owner });
      const missing = await invoke(tool(bridge, 'lookup_pantry'), { item: 'unicorn' });
      expect(missing).toBeInstanceOf(ToolError);
      expect((missing as ToolError).code).toBe('NOT_FOUND'); // the code crossed the wire as data
    });

    it('turns the tool progress into progress events of a Reins run', async () => {
      const model = scriptModel([
        JSON.stringify({ thought: 'count', action: 'slow_count', input: { steps: 3, delayMs: 20 } }),
        JSON.stringify({ thought: 'done', final: 'counted 3' }),
      ]);
      const run = runAgent({ query: 'count', model, tools: bridge.tools(), principal: { id: 'u1' } });
      const record = await run.result;
      expect(record.status).toBe('success');
      const progress = run.events.filter((e) => e.type === 'step' && e.phase === 'progress');
      // The server sends 1, 2, 3 before the result; when the client process falls behind (a
      // loaded machine), the SDK may handle the result before the notifications that came in the
      // same read and drop them, so only the first is certain: then the rest in order, none made up.
      const values = progress.map((e) => (e as { progress?: number }).progress);
      expect(values[0]).toBe(1);
      expect(values).toEqual([1, 2, 3].slice(0, values.length));
      expect(progress[0]).toMatchObject({ tool: 'slow_count', total: 3, message: 'step 1' });
    });

    it("cancelling a long call aborts the tool's signal on the server", async () => {
      const before = aborts();
      const controller = new AbortController();
      const { ctx, progress } = context(controller.signal);
      const pending = timed(invoke(tool(bridge, 'slow_count'), { steps: 50, delayMs: 200 }, ctx));
      await until(() => progress.length > 0);
      controller.abort();
      const { value, ms } = await pending;
      expect((value as ToolError).code).toBe('CANCELLED');
      expect(ms).toBeLessThan(2_000);
      await until(() => aborts() === before + 1, 3_000);
      expect(bridge.status().restarts).toBe(0); // it honoured the cancel: nothing had to be killed
      expect(await invoke(tool(bridge, 'lookup_pantry'), { item: 'tea' })).toMatchObject({ owner });
      void label;
    });
  },
);

describe.each<[string, Negotiation]>([
  ['stdio', 'auto'],
  ['stdio', 'legacy'],
  ['Streamable HTTP', 'auto'],
  ['Streamable HTTP', 'legacy'],
])('the server validates input itself, before the tool runs (%s, %s)', (label, mode) => {
  it('refuses a model-invented key, a wrong type and an oversize string as INVALID_PARAMETER', async () => {
    const client = await rawClient(
      label === 'stdio'
        ? { kind: 'stdio', env }
        : { kind: 'http', url: http?.url ?? '', token: 'token-alice' },
      mode,
    );
    try {
      const call = (args: Record<string, unknown>) =>
        client.callTool({ name: 'lookup_pantry', arguments: args });
      const first = (await call({ item: 'rice' })).structuredContent as { runs: number; owner: string };
      const refused = [
        await call({ item: 'rice', space_id: 'someone-else' }),
        await call({ item: 42 }),
        await call({ item: 'x'.repeat(41) }),
        await call({}),
      ];
      for (const result of refused) expect(toolError(result).code).toBe('INVALID_PARAMETER');
      expect(toolError(refused[0]!).message).toMatch(/space_id/);
      const after = (await call({ item: 'rice' })).structuredContent as { runs: number };
      expect(after.runs).toBe(first.runs + 1); // none of the refused calls reached the tool
      const { tools } = await client.listTools();
      const lookup = tools.find((t) => t.name === 'lookup_pantry');
      expect(lookup?.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(lookup?.outputSchema).toMatchObject({ type: 'object' });
      expect(lookup?.annotations?.readOnlyHint).toBe(true);
    } finally {
      await client.close();
    }
  });
});
