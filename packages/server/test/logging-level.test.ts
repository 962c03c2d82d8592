import { describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { logRunEvent } from '../src/logging.js';
import { memoryLogger } from './helpers.js';

/** A `start` event that counts how often its query is read (masking it reads it). */
function countingStart(): { event: RunEvent; reads: () => number } {
  let reads = 0;
  const event = {
    type: 'start',
    runId: 'r1',
    seq: 0,
    at: 0,
    agent: 'a',
    model: 'm',
    get query() {
      reads++;
      return 'call 13800138000';
    },
  } as unknown as RunEvent;
  return { event, reads: () => reads };
}

describe('logRunEvent', () => {
  it('builds nothing for an info line when the level is above info', () => {
    const { logger, lines } = memoryLogger('warn');
    const start = countingStart();
    logRunEvent(logger, start.event);
    expect(start.reads()).toBe(0);
    expect(lines).toEqual([]);
  });

  it('writes the masked line at info', async () => {
    const { logger, lines } = memoryLogger('info');
    const start = countingStart();
    logRunEvent(logger, start.event);
    await new Promise((resolve) => setImmediate(resolve));
    expect(start.reads()).toBe(1);
    expect(lines).toMatchObject([{ msg: 'run started', runId: 'r1' }]);
    expect(JSON.stringify(lines)).not.toContain('13800138000');
  });

  it('still writes a run error at warn', async () => {
    const { logger, lines } = memoryLogger('warn');
    logRunEvent(logger, {
      type: 'error',
      runId: 'r1',
      seq: 1,
      at: 0,
      code: 'X',
      message: 'boom',
    } as unknown as RunEvent);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toMatchObject([{ msg: 'run error', code: 'X' }]);
  });
});
