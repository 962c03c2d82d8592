import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from 'reins';
import { FIXTURE, bridges, context, invoke, timed, tool, until } from './helpers.js';

const fixture = bridges();
afterAll(() => fixture.closeAll());

const codeOf = (value: unknown): string | undefined => (value instanceof ToolError ? value.code : undefined);

describe('MCP client bridge against the fault fixture (stdio)', () => {
  it('negotiates the newest revision and imports tools with cleaned descriptions and strict inputs', async () => {
    const bridge = await fixture.connect({ prefix: 'fx_' });
    const status = bridge.status();
    expect(status).toMatchObject({
      server: 'fixture',
      status: 'up',
      protocolVersion: '2026-07-28',
      restarts: 0,
    });
    expect(status.latencyMs).toBeGreaterThanOrEqual(0);
    const lookup = tool(bridge, 'fx_lookup');
    expect(lookup.description).toBe('Looks a key up. Returns its value.'); // the BEL is gone
    expect(lookup.readOnly).toBe(true);
    expect(tool(bridge, 'fx_slow').readOnly).toBe(false);
    expect(lookup.input.safeParse({ key: 'a' }).success).toBe(true);
    expect(lookup.input.safeParse({ key: 'a', space_id: 'other' }).success).toBe(false);
    expect(lookup.input.safeParse({ key: 'x'.repeat(21) }).success).toBe(false);
    expect(await invoke(lookup, { key: 'a' })).toEqual({ key: 'a', value: 42 });
  });

  it('maps isError results and JSON-RPC errors to typed codes', async () => {
    const bridge = await fixture.connect();
    const fail = tool(bridge, 'fail');
    expect(codeOf(await invoke(fail, { kind: 'input' }))).toBe('INVALID_PARAMETER');
    expect(codeOf(await invoke(fail, { kind: 'protocol' }))).toBe('INVALID_PARAMETER'); // -32602
    expect(codeOf(await invoke(fail, { kind: 'internal' }))).toBe('SERVICE_UNAVAILABLE'); // -32603
    expect(codeOf(await invoke(fail, { kind: 'other' }))).toBe('SERVICE_UNAVAILABLE');
    expect(codeOf(await invoke(tool(bridge, 'lookup'), { key: 'missing' }))).toBe('NOT_FOUND');
  });

  it('forwards progress notifications to ctx.progress', async () => {
    const bridge = await fixture.connect();
    const { ctx, progress } = context();
    expect(await invoke(tool(bridge, 'slow'), { ms: 200 }, ctx)).toBe('waited 200 ms');
    // The last notification may race the result; the ones before it may not.
    expect(progress.slice(0, 3)).toEqual(
      [1, 2, 3].map((i) => ({ progress: i, total: 4, message: `step ${i}` })),
    );
  });

  it('a server that never answers times out, and one that honours cancellation is left running', async () => {
    const bridge = await fixture.connect({ callTimeoutMs: 300, cancelGraceMs: 300 });
    const { value, ms } = await timed(invoke(tool(bridge, 'hang'), {}));
    expect(codeOf(value)).toBe('TIMEOUT');
    expect(ms).toBeLessThan(1_500);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await timed(
      invoke(tool(bridge, 'slow'), { ms: 5_000 }, context(controller.signal).ctx),
    );
    expect(codeOf(cancelled.value)).toBe('CANCELLED');
    expect(cancelled.ms).toBeLessThan(500);
    await new Promise((r) => setTimeout(r, 600)); // past the grace period
    expect(bridge.status()).toMatchObject({ status: 'up', restarts: 0 });
  });

  it('a server killed mid-call fails the call at once, and the next call works after reconnecting', async () => {
    const bridge = await fixture.connect({ reconnect: { initialDelayMs: 20 } });
    const pid = bridge.status().pid as number;
    const pending = timed(invoke(tool(bridge, 'slow'), { ms: 5_000 }));
    setTimeout(() => process.kill(pid, 'SIGKILL'), 100);
    const { value, ms } = await pending;
    expect(codeOf(value)).toBe('SERVICE_UNAVAILABLE');
    expect(ms).toBeLessThan(1_000);
    expect(await invoke(tool(bridge, 'pid'), {})).not.toBe(String(pid));
    expect(bridge.status()).toMatchObject({ status: 'up', restarts: 1 });
  });

  it('a read-only call is retried once after the server died under it', async () => {
    const bridge = await fixture.connect({ reconnect: { initialDelayMs: 20 } });
    const pid = bridge.status().pid as number;
    const pending = invoke(tool(bridge, 'slow_read'), { ms: 400 });
    setTimeout(() => process.kill(pid, 'SIGKILL'), 100);
    expect(await pending).toBe('waited 400 ms');
    expect(bridge.status().restarts).toBe(1);
  });

  it('a malformed line on stdout fails the pending call at once and restarts the server', async () => {
    const bridge = await fixture.connect({ reconnect: { initialDelayMs: 20 } });
    const { value, ms } = await timed(invoke(tool(bridge, 'garbage'), {}));
    expect(codeOf(value)).toBe('SERVICE_UNAVAILABLE');
    expect((value as ToolError).message).toMatch(/not JSON-RPC/);
    expect(ms).toBeLessThan(1_500);
    expect(await invoke(tool(bridge, 'lookup'), { key: 'b' })).toEqual({ key: 'b', value: 42 });
  });

  it('a stdio server that ignores cancellation is signalled and restarted', async () => {
    const bridge = await fixture.connect({ callTimeoutMs: 300, cancelGraceMs: 300, killGraceMs: 300 });
    const pid = bridge.status().pid as number;
    const { value, ms } = await timed(invoke(tool(bridge, 'busy'), { ms: 60_000 }));
    expect(codeOf(value)).toBe('TIMEOUT');
    expect(ms).toBeLessThan(1_000);
    await until(() => bridge.status().restarts === 1);
    expect(() => process.kill(pid, 0)).toThrow(); // the old process is gone
    expect(await invoke(tool(bridge, 'pid'), {})).not.toBe(String(pid));
  });

  it('refuses a changed definition until re-approved; new tools wait; removed tools are NOT_FOUND', async () => {
    const bridge = await fixture.connect();
    const oldLookup = tool(bridge, 'lookup');
    const fail = tool(bridge, 'fail');
    expect(await invoke(tool(bridge, 'change'), {})).toBe('changed');
    await until(() => bridge.pendingApprovals().length === 2);
    expect(bridge.pendingApprovals().map((p) => [p.name, p.kind])).toEqual([
      ['lookup', 'changed'],
      ['extra', 'new'],
    ]);
    const refused = await invoke(oldLookup, { key: 'a' });
    expect(codeOf(refused)).toBe('PERMISSION_DENIED');
    expect((refused as ToolError).message).toMatch(/changed its definition/);
    expect(codeOf(await invoke(fail, { kind: 'x' }))).toBe('NOT_FOUND');
    const names = bridge.tools().map((t) => t.name);
    expect(names).not.toContain('lookup');
    expect(names).not.toContain('extra');

    bridge.approveToolChange('lookup');
    const newLookup = tool(bridge, 'lookup');
    expect(newLookup.description).toMatch(/evil/); // the operator saw and accepted it
    expect(await invoke(newLookup, { key: 'a' })).toEqual({ key: 'a', value: 42 });
    expect(codeOf(await invoke(oldLookup, { key: 'a' }))).toBe('PERMISSION_DENIED'); // a stale copy
    expect(() => bridge.approveToolChange('extra', 'sha256:not-the-one')).toThrow(TypeError);
    bridge.approveToolChange('extra');
    expect(await invoke(tool(bridge, 'extra'), {})).toBe('extra');
    expect(bridge.pendingApprovals()).toEqual([]);
  });

  it('tools not in the pinned set wait for approval from the first listing on', async () => {
    const first = await fixture.connect();
    const pins = first.fingerprints();
    const { lookup: _lookup, ...withoutLookup } = pins;
    const second = await fixture.connect({ pinned: withoutLookup });
    expect(second.tools().map((t) => t.name)).not.toContain('lookup');
    expect(second.pendingApprovals().map((p) => p.name)).toEqual(['lookup']);
  });

  it('a call made while the server is down fails at once; after it is back, calls work again', async () => {
    const downFile = join(mkdtempSync(join(tmpdir(), 'reins-mcp-down-')), 'down');
    const bridge = await fixture.connect({
      transport: {
        kind: 'stdio',
        command: process.execPath,
        args: [FIXTURE],
        env: { FAULT_DOWN_FILE: downFile },
      },
      protocol: 'legacy', // one process per attempt (auto would start a probe process too)
      toolTimeoutMs: 20_000,
      reconnect: { initialDelayMs: 100, maxDelayMs: 300, maxAttempts: 1_000 },
    });
    const lookup = tool(bridge, 'lookup');
    const pid = bridge.status().pid as number;
    writeFileSync(downFile, '');
    process.kill(pid, 'SIGKILL');
    await until(() => bridge.status().restarts === 1);
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(invoke(lookup, { key: 'a' }));
      expect(codeOf(value)).toBe('SERVICE_UNAVAILABLE');
      expect((value as ToolError).message).toMatch(/down on purpose|closed/);
      // At most one connection attempt (a process start, slow on a loaded machine), never the 20 s tool timeout.
      expect(ms).toBeLessThan(5_000);
    }
    rmSync(downFile);
    await until(() => bridge.status().status === 'up', 5_000);
    expect(await invoke(lookup, { key: 'a' })).toEqual({ key: 'a', value: 42 });
    expect(bridge.status().pid).not.toBe(pid);
  });
});
