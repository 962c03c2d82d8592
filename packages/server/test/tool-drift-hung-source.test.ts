import { afterEach, describe, expect, it } from 'vitest';
import { checkToolDrift, type ToolDefinitionSource } from 'reins/node';
import { scriptModel } from 'reins/testing';
import { memoryLogger, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A source whose listing never answers (a server that accepted the connection and went quiet). */
const hung: ToolDefinitionSource = {
  source: 'mcp:quiet',
  toolDefinitions: () => new Promise(() => undefined),
};

// The drift watch runs one check at a time, and a later check joins the one under way: a source
// that never answered kept that check pending for good, and no drift check ran again.
describe('a tool-definition source that never answers', () => {
  it('is reported unchecked after the source timeout, not waited for', async () => {
    const report = await checkToolDrift({ sources: [hung] }, [], { sourceTimeoutMs: 30 });
    expect(report.unchecked).toEqual([
      { source: 'mcp:quiet', reason: 'its listing did not answer within 30 ms' },
    ]);
  });

  it('does not stop the periodic checks: each check ends, the next one runs', async () => {
    let reads = 0;
    const { logger } = memoryLogger('info');
    running = await start({
      agents: { chat: { model: scriptModel([]), tools: [] } },
      logger,
      toolDrift: {
        approved: () => {
          reads++;
          return [];
        },
        sources: [hung],
        sourceTimeoutMs: 30,
        intervalMs: 3_600_000,
      },
    });
    const first = await running.server.toolDrift?.check();
    expect(first?.kind === 'checked' && first.report.unchecked.map((u) => u.source)).toEqual(['mcp:quiet']);
    const before = reads;
    const second = await running.server.toolDrift?.check();
    expect(reads).toBe(before + 1); // a check of its own, not the hung one joined
    expect(second?.kind).toBe('checked');
  });

  it('an approved-set reader that never answers fails the check after the timeout', async () => {
    const { logger } = memoryLogger('info');
    running = await start({
      agents: { chat: { model: scriptModel([]), tools: [] } },
      logger,
      toolDrift: { approved: () => new Promise(() => undefined), sourceTimeoutMs: 30, intervalMs: 3_600_000 },
    });
    const state = await running.server.toolDrift?.check();
    expect(state).toMatchObject({
      kind: 'failed',
      reason: 'the approved definitions did not answer within 30 ms',
    });
  });
});
