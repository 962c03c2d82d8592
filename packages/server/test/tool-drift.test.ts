import { afterEach, describe, expect, it } from 'vitest';
import { defineTool } from 'reins';
import { toolDefinition, type ToolDefinitionSnapshot } from 'reins/node';
import { scriptModel } from 'reins/testing';
import { z } from 'zod';
import { memoryLogger, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const metric = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

function lookup(description: string, version = '1') {
  return defineTool({
    name: 'lookup',
    description,
    version,
    lastUpdated: '2026-12-01',
    input: z.object({ key: z.string() }),
    output: z.object({ value: z.number() }),
    readOnly: true,
    run: () => ({ value: 1 }),
  });
}

const other = defineTool({
  name: 'other',
  description: 'Another tool.',
  input: z.object({}),
  output: z.object({}),
  readOnly: true,
  run: () => ({}),
});

describe('the periodic tool definition drift check (issue 18 item 6)', () => {
  it('a definition changed since approval shows in /metrics, /health and the log; approving clears it', async () => {
    let approved: ToolDefinitionSnapshot[] = [
      toolDefinition(lookup('Looks a key up.')),
      toolDefinition(other),
    ];
    const { logger, lines } = memoryLogger('info');
    running = await start({
      agents: {
        chat: { model: scriptModel([]), tools: [lookup('Looks a key up. Also sends it away.'), other] },
      },
      logger,
      toolDrift: { approved: () => approved, intervalMs: 3_600_000 },
    });
    const state = await running.server.toolDrift?.check();
    expect(state?.kind).toBe('checked');

    const text = await (await fetch(`${running.url}/metrics`)).text();
    expect(metric(text, 'reins_tool_definition_drift{tool="lookup",kind="changed_unversioned"}')).toBe(1);
    expect(metric(text, 'reins_tool_definition_drift{tool="other",kind="none"}')).toBe(0);
    expect(metric(text, 'reins_tool_definitions_drifted')).toBe(1);
    expect(metric(text, 'reins_tool_definition_drift_checked_seconds')).toBeGreaterThan(0);

    const health = (await (await fetch(`${running.url}/health`)).json()) as {
      checks: Record<string, { status: string; drifted?: number; detail?: string }>;
    };
    expect(health.checks['tools']).toMatchObject({ status: 'up', drifted: 1 });
    expect(health.checks['tools']?.detail).toMatch(/lookup \(changed_unversioned\)/);

    const warned = lines.filter((l) => String(l['msg']).startsWith('tool definitions differ'));
    expect(warned).toHaveLength(1);
    expect(warned[0]?.['toolDrift']).toEqual([
      expect.objectContaining({ tool: 'lookup', kind: 'changed_unversioned', fields: ['description'] }),
    ]);

    // The same drift again: not logged twice. Approved: gauge back to 0, logged once.
    await running.server.toolDrift?.check();
    expect(lines.filter((l) => String(l['msg']).startsWith('tool definitions differ'))).toHaveLength(1);
    approved = [toolDefinition(lookup('Looks a key up. Also sends it away.')), toolDefinition(other)];
    await running.server.toolDrift?.check();
    const after = await (await fetch(`${running.url}/metrics`)).text();
    expect(metric(after, 'reins_tool_definitions_drifted')).toBe(0);
    expect(metric(after, 'reins_tool_definition_drift{tool="lookup",kind="none"}')).toBe(0);
    expect(after).not.toContain('kind="changed_unversioned"');
    expect(lines.some((l) => l['msg'] === 'tool definitions match the approved set again')).toBe(true);
  });

  it('a version bump is labeled changed; a source that cannot be listed is unchecked, its tools not removed', async () => {
    const mcp = toolDefinition(other, 'mcp:remote');
    running = await start({
      agents: { chat: { model: scriptModel([]), tools: [lookup('Looks a key up, v2.', '2')] } },
      toolDrift: {
        approved: () => [toolDefinition(lookup('Looks a key up.')), { ...mcp, name: 'remote_other' }],
        sources: [{ source: 'mcp:remote', toolDefinitions: () => Promise.reject(new Error('down')) }],
      },
    });
    await running.server.toolDrift?.check();
    const text = await (await fetch(`${running.url}/metrics`)).text();
    expect(metric(text, 'reins_tool_definition_drift{tool="lookup",kind="changed"}')).toBe(1);
    expect(metric(text, 'reins_tool_definitions_drifted')).toBe(1);
    expect(metric(text, 'reins_tool_definition_sources_unchecked')).toBe(1);
    expect(text).not.toContain('tool="remote_other"');
  });

  it('runs at start-up by itself; a bad interval is refused at construction', async () => {
    running = await start({
      agents: { chat: { model: scriptModel([]), tools: [other] } },
      toolDrift: { approved: () => undefined },
    });
    for (let i = 0; i < 50 && running.server.toolDrift?.state.kind === 'pending'; i++)
      await new Promise((r) => setTimeout(r, 10));
    const text = await (await fetch(`${running.url}/metrics`)).text();
    expect(metric(text, 'reins_tool_definition_drift{tool="other",kind="added"}')).toBe(1);
    await expect(
      start({
        agents: { chat: { model: scriptModel([]) } },
        toolDrift: { approved: () => [], intervalMs: 0 },
      }),
    ).rejects.toThrow(/intervalMs/);
  });
});
