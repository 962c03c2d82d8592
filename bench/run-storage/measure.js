// @ts-check
/**
 * What the recorded runs cost to store: plain JSON (one line per event, as a naive log writes
 * it) against the run codec's bodies (what `sqlRunStore` writes), per agent and in total.
 * Every body is decoded again by a fresh codec and compared with the event's JSON.
 */
import { Buffer } from 'node:buffer';
import { PromptTexts, RunCodec } from '@reins/stores';

/** @typedef {import('./record-runs.js').RecordedRun} RecordedRun */
/** @typedef {{ runs: number, events: number, plainBytes: number, encodedBytes: number }} Tally */

/**
 * @param {readonly RecordedRun[]} runs
 * @returns {{ byAgent: Map<string, Tally>, total: Tally, mismatches: string[] }}
 */
export function measureStorage(runs) {
  /** @type {Map<string, Tally>} */
  const byAgent = new Map();
  const total = { runs: 0, events: 0, plainBytes: 0, encodedBytes: 0 };
  /** @type {string[]} */
  const mismatches = [];
  // Kept prompts' system messages are stored once (a row of their own): counted at first use.
  const texts = new PromptTexts();
  /** @type {Set<string>} */
  const storedTexts = new Set();
  for (const run of runs) {
    const tally = byAgent.get(run.agent) ?? { runs: 0, events: 0, plainBytes: 0, encodedBytes: 0 };
    byAgent.set(run.agent, tally);
    const writer = new RunCodec(texts);
    const reader = new RunCodec(texts);
    for (const event of run.events) {
      const plain = Buffer.byteLength(JSON.stringify(event)) + 1; // the line's newline
      /** @type {Map<string, string>} */
      const used = new Map();
      const body = writer.encode(event, used);
      let textBytes = 0;
      for (const [hash, text] of used)
        if (!storedTexts.has(hash)) {
          storedTexts.add(hash);
          textBytes += Buffer.byteLength(text) + hash.length;
        }
      const back = reader.decode(body, event.runId, event.seq);
      if (JSON.stringify(back) !== JSON.stringify(event)) mismatches.push(`${event.runId}#${event.seq}`);
      for (const t of [tally, total]) {
        t.events++;
        t.plainBytes += plain;
        t.encodedBytes += Buffer.byteLength(body) + textBytes;
      }
    }
    tally.runs++;
    total.runs++;
  }
  return { byAgent, total, mismatches };
}

/** @param {Tally} t */
export const saved = (t) => 1 - t.encodedBytes / t.plainBytes;

/**
 * The same runs as if recorded with `recordPrompts: false`: every model step (a reason event,
 * a plan run's plan version) without its kept prompt (the only difference such a run's log has).
 * @param {readonly RecordedRun[]} runs
 * @returns {RecordedRun[]}
 */
export function withoutPrompts(runs) {
  return runs.map((run) => ({
    ...run,
    events: run.events.map((event) =>
      event.type === 'step' && (event.phase === 'reason' || event.phase === 'plan')
        ? { ...event, prompt: undefined }
        : event,
    ),
  }));
}
