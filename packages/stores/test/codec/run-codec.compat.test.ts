import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { RunCodec } from '@reins/stores';

/**
 * Bodies already stored stay readable. The fixture is two recorded kitchen runs (a ReAct run
 * and a plan run, one line per event: its body and the event) as the encoder wrote them
 * before it picked one base per event by shared content (it weighed every candidate by
 * encoding against each; several of these events were stored against another base than
 * today's encoder would pick). Same codec version: only the encoder's choices changed.
 */
interface Line {
  readonly body: string;
  readonly event: RunEvent;
}

const lines = readFileSync(new URL('./bodies-before-base-pick.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line) as Line);
const runIds = [...new Set(lines.map((line) => line.event.runId))];
const runs = runIds.map((runId) => lines.filter((line) => line.event.runId === runId));

describe('RunCodec reads bodies written by the earlier encoder', () => {
  it('decodes each to its event exactly', () => {
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      const reader = new RunCodec();
      for (const { body, event } of run)
        expect(JSON.stringify(reader.decode(body, event.runId, event.seq))).toBe(JSON.stringify(event));
    }
  });

  it('continues a run from them: a fresh reader decodes the old bodies and the new ones alike', () => {
    for (const run of runs) {
      const split = Math.floor(run.length / 2);
      const writer = new RunCodec();
      run.slice(0, split).forEach(({ body, event }) => writer.decode(body, event.runId, event.seq));
      const bodies = [
        ...run.slice(0, split).map(({ body }) => body),
        ...run.slice(split).map(({ event }) => writer.encode(event)),
      ];
      const reader = new RunCodec();
      bodies.forEach((body, seq) => {
        const event = run[seq]?.event;
        expect(JSON.stringify(reader.decode(body, event?.runId ?? '', seq))).toBe(JSON.stringify(event));
      });
    }
  });
});
