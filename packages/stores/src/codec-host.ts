import type { RunEvent } from 'reins';
import { RunCodec, type PromptTexts } from './codec/index.js';
import { WriterStates } from './writer-states.js';

/** What encoding a run's next events gives: their stored bodies, and the texts they refer to (hash → JSON form). */
export interface Encoded {
  readonly bodies: string[];
  readonly usedTexts: Map<string, string>;
}

/**
 * Where the codec states of the runs a store is writing live (one `RunCodec` per run): in this
 * thread (`localCodecHost`), or in a worker thread (`threadCodecHost`), so that encoding — the
 * largest part of an append — leaves the event loop. Either way the store sees the same bodies.
 */
export interface CodecHost {
  /** The next `seq` of the run's held state; `undefined` when none is held. */
  count(runId: string): number | undefined;
  /** Holds an empty state for a run just created. */
  start(runId: string): void;
  /**
   * Whether a state `load` decoded anyway is worth holding for the run's next append: here it
   * is free; a thread would decode the bodies again (and a process that only reads, like a
   * shared-mode API instance, would start one).
   */
  readonly keepsLoaded: boolean;
  /** Holds `codec`, just decoded here from the run's stored `bodies` (in order, from seq 0). */
  resume(runId: string, codec: RunCodec, bodies: readonly string[]): void;
  /** Encodes the run's next events (its state must be held, at their first seq) and moves the state on; rejects, the state dropped, when it cannot. */
  encode(runId: string, events: readonly RunEvent[]): Promise<Encoded>;
  drop(runId: string): void;
  /** Lets go of what the host holds (a thread: ended). */
  close(): Promise<void>;
}

/** The codec states in this thread (bounded, least recently used dropped first). */
export function localCodecHost(texts: PromptTexts | undefined, maxStates: number): CodecHost {
  const states = new WriterStates<RunCodec>(maxStates);
  return {
    keepsLoaded: true,
    count: (runId) => states.get(runId)?.count,
    start: (runId) => states.set(runId, new RunCodec(texts)),
    resume: (runId, codec) => states.set(runId, codec),
    async encode(runId, events) {
      const codec = states.get(runId);
      if (codec === undefined) throw new Error(`codec: no state held for run ${runId}`);
      const usedTexts = new Map<string, string>();
      try {
        return { bodies: events.map((event) => codec.encode(event, usedTexts)), usedTexts };
      } catch (error) {
        states.drop(runId); // an event may have gone through before the one that failed
        throw error;
      }
    },
    drop: (runId) => states.drop(runId),
    close: async () => states.clear(),
  };
}
