// The run event codec: delta-encoded, exact, versioned stored bodies (see `run-codec.ts`).
import type { RunEvent } from 'reins';
import type { RunCodec } from './run-codec.js';

export { RunCodec, StoredEventError, CODEC_VERSION, CODEC_VERSION_WITH_TEXTS } from './run-codec.js';
export { PromptTexts, MIN_INTERNED_CHARS } from './prompt-texts.js';

/** The stored body of the run's next event; advances `state` (a `RunCodec` per run). */
export const encodeEvent = (state: RunCodec, event: RunEvent): string => state.encode(event);

/** The run's next event back from its stored body; advances `state`. */
export const decodeEvent = (state: RunCodec, body: string, runId: string, seq: number): RunEvent =>
  state.decode(body, runId, seq);
