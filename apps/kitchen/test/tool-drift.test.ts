import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@reins/server';
import { compareToolDefinitions, currentDefinitions, formatDriftReport, readApprovedTools } from 'reins/node';
import { readConfig } from '../src/config.js';
import type { CliIo } from '../src/cli/io.js';
import { main } from '../src/cli/main.js';
import { toolsCommand } from '../src/cli/tools-command.js';
import { connectNutrition, type NutritionConnection } from '../src/server/nutrition-bridge.js';
import { createKitchenServer } from '../src/server/kitchen-server.js';
import {
  KITCHEN_APPROVED_TOOLS,
  kitchenAssistantTools,
  kitchenToolDrift,
  kitchenToolSet,
} from '../src/server/tool-drift.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { describeEachBackend } from './harness.js';
import { capturedLogger } from './server-helpers.js';

let nutrition: NutritionConnection | undefined;
beforeAll(async () => {
  nutrition = await connectNutrition();
}, 30_000);
afterAll(async () => {
  await nutrition?.close();
});

/** A copy of the approved set whose fridge_items description differs: as if the code changed it. */
function editedApprovedFile(): string {
  const file = JSON.parse(readFileSync(KITCHEN_APPROVED_TOOLS, 'utf8')) as {
    tools: { name: string; description: string }[];
  };
  for (const t of file.tools) if (t.name === 'fridge_items') t.description = 'An older description.';
  const path = join(mkdtempSync(join(tmpdir(), 'kitchen-tools-')), 'edited.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: {} };
  return { io, out, err };
}

describe('the kitchen tool definitions (issue 18 item 6)', () => {
  it('drift guard: the committed tools.approved.json matches the tools in use, nutrition server included', async () => {
    if (nutrition === undefined) throw new Error('no nutrition server');
    const { definitions, unchecked } = await currentDefinitions(kitchenToolSet(nutrition.bridge));
    expect(unchecked).toEqual([]);
    const approved = (await readApprovedTools(KITCHEN_APPROVED_TOOLS)) ?? [];
    const report = compareToolDefinitions(approved, definitions);
    // A kitchen tool (or the nutrition server's) changed without approval: review the change,
    // bump its `version`, then `npm run kitchen -- tools approve` and commit tools.approved.json.
    expect(formatDriftReport(report)).toEqual([
      `tool definitions: ${definitions.length} checked, all as approved`,
    ]);
    expect(definitions.map((d) => d.source).sort()).toEqual([
      ...Array<string>(7).fill('app'),
      'mcp:nutrition',
      'mcp:nutrition',
    ]);
  });

  it('every assistant tool carries a version and lastUpdated', () => {
    for (const tool of kitchenAssistantTools()) {
      expect({
        tool: tool.name,
        version: tool.version,
        dated: /^\d{4}-\d{2}-\d{2}/.test(tool.lastUpdated ?? ''),
      }).toEqual({
        tool: tool.name,
        version: expect.any(String),
        dated: true,
      });
    }
  });

  it('kitchen tools check: 0 as approved, 1 on a change (louder without a version bump); approve writes the set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kitchen-tools-'));
    const same = join(dir, 'same.json');
    copyFileSync(KITCHEN_APPROVED_TOOLS, same);
    const clean = capture();
    expect(await toolsCommand(readConfig({}), ['check'], clean.io, same)).toBe(0);
    expect(clean.out.join('\n')).toMatch(/9 checked, all as approved/);

    // The approved description differs from the code's: as if someone edited the tool.
    const edited = editedApprovedFile();
    const drift = capture();
    expect(await toolsCommand(readConfig({}), ['check'], drift.io, edited)).toBe(1);
    expect(drift.out.join('\n')).toMatch(
      /CHANGED WITHOUT A VERSION BUMP\s+fridge_items \(app\): description/,
    );

    const fresh = join(dir, 'fresh.json');
    const approve = capture();
    expect(await toolsCommand(readConfig({}), ['approve'], approve.io, fresh)).toBe(0);
    const prints = async (path: string) =>
      ((await readApprovedTools(path)) ?? []).map((t) => [t.name, t.fingerprint]);
    expect(await prints(fresh)).toEqual(await prints(KITCHEN_APPROVED_TOOLS));
  }, 60_000);

  it('usage: kitchen tools --help exits 0; an unknown action is a usage error (2)', async () => {
    const help = capture();
    expect(await main(['tools', '--help'], help.io)).toBe(0);
    expect(help.out.join('\n')).toContain('kitchen tools check');
    const bad = capture();
    expect(await main(['tools', 'verify'], bad.io)).toBe(2);
    expect(bad.err.join('\n')).toMatch(/kitchen tools takes check or approve/);
  });

  it('REINS_TOOL_DRIFT_CHECK_MS: 6 h by default, 0 turns it off, anything else is a configuration error', () => {
    expect(readConfig({}).toolDriftCheckMs).toBe(21_600_000);
    expect(readConfig({ REINS_TOOL_DRIFT_CHECK_MS: '0' }).toolDriftCheckMs).toBe(0);
    expect(readConfig({ REINS_TOOL_DRIFT_CHECK_MS: '60000' }).toolDriftCheckMs).toBe(60_000);
    expect(() => readConfig({ REINS_TOOL_DRIFT_CHECK_MS: 'hourly' })).toThrow(/REINS_TOOL_DRIFT_CHECK_MS/);
    expect(() => readConfig({ REINS_TOOL_DRIFT_CHECK_MS: '9999999999' })).toThrow(
      /REINS_TOOL_DRIFT_CHECK_MS/,
    );
  });
});

describeEachBackend(
  'the kitchen server checks its tool definitions',
  (harness) => {
    it('a kitchen tool changed since approval: 1 in /metrics, named in /health; the nutrition tools as approved', async () => {
      if (nutrition === undefined) throw new Error('no nutrition server');
      const server = createKitchenServer({
        services: harness().services,
        model: kitchenDemoModel(),
        nutrition: () => Promise.resolve(null),
        logger: capturedLogger().logger,
        toolDrift: kitchenToolDrift(3_600_000, nutrition.bridge, editedApprovedFile()),
      });
      const running = await serve(server.app, { port: 0 });
      try {
        await server.reins.toolDrift?.check();
        const metrics = await (await fetch(`${running.url}/metrics`)).text();
        expect(metrics).toContain(
          'reins_tool_definition_drift{tool="fridge_items",kind="changed_unversioned"} 1',
        );
        expect(metrics).toContain('reins_tool_definition_drift{tool="nutrition_get_food",kind="none"} 0');
        expect(metrics).toContain('reins_tool_definitions_drifted 1');
        const health = (await (await fetch(`${running.url}/health`)).json()) as {
          checks: Record<string, { detail?: string }>;
        };
        expect(health.checks['tools']?.detail).toMatch(/fridge_items \(changed_unversioned\)/);
      } finally {
        await server.close();
        await running.close();
      }
    });
  },
  'pglite',
);
