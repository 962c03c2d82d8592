import { afterAll, describe, expect, it } from 'vitest';
import { checkToolDrift, compareToolDefinitions } from 'reins/node';
import { bridges, invoke, tool, until } from './helpers.js';

const fixture = bridges();
afterAll(() => fixture.closeAll());

describe('MCP-imported tools in the drift check (issue 18 item 6)', () => {
  it('lists every definition with the server version and first-seen time; imported tools carry them', async () => {
    const bridge = await fixture.connect({
      prefix: 'fx_',
      deps: { now: () => Date.parse('2026-12-02T08:00:00Z') },
    });
    expect(bridge.source).toBe('mcp:fixture');
    const definitions = await bridge.toolDefinitions();
    const lookup = definitions.find((d) => d.name === 'fx_lookup');
    expect(lookup).toMatchObject({
      source: 'mcp:fixture',
      version: '1.0.0', // the fixture's serverInfo.version
      lastUpdated: '2026-12-02T08:00:00.000Z',
      description: 'Looks a key up.\u0007 Returns its value.', // as sent: a hidden change still counts
      readOnly: true,
      needsApproval: false,
      annotations: { readOnlyHint: true },
    });
    expect(lookup?.input).toMatchObject({ type: 'object', required: ['key'] });
    expect(tool(bridge, 'fx_lookup')).toMatchObject({
      version: '1.0.0',
      lastUpdated: '2026-12-02T08:00:00.000Z',
    });
  });

  it('a definition the server changed since approval shows as drift, even while the catalog refuses it', async () => {
    const bridge = await fixture.connect();
    const approved = await bridge.toolDefinitions();
    expect(compareToolDefinitions(approved, await bridge.toolDefinitions()).clean).toBe(true);

    expect(await invoke(tool(bridge, 'change'), {})).toBe('changed');
    await until(() => bridge.pendingApprovals().length === 2);
    const report = await checkToolDrift({ sources: [bridge] }, approved);
    expect(report.changes.map((c) => [c.name, c.kind, c.fields, c.unversioned])).toEqual([
      ['extra', 'added', [], false],
      ['fail', 'removed', [], false],
      // Same server version 1.0.0: changed without a bump.
      ['lookup', 'changed', ['description'], true],
    ]);
  });

  it('a server that cannot be reached is unchecked, not a removal of its tools', async () => {
    const up = await fixture.connect();
    const approved = await up.toolDefinitions();
    const down = await fixture.connect({
      transport: { kind: 'stdio', command: process.execPath, args: ['/nonexistent/server.mjs'] },
      reconnect: { maxAttempts: 1, initialDelayMs: 10 },
      connectTimeoutMs: 2_000,
    });
    await expect(down.toolDefinitions()).rejects.toThrow(/fixture is down/);
    const report = await checkToolDrift({ sources: [down] }, approved);
    expect(report.clean).toBe(true);
    expect(report.unchecked).toEqual([{ source: 'mcp:fixture', reason: expect.stringMatching(/down/) }]);
  });
});
