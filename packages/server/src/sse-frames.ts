import { nextTick } from 'node:process';
import { clearInterval, setInterval } from 'node:timers';

/** What the batch writes to: hono's `SSEStreamingApi` (only `write` is used). */
export interface FrameSink {
  write(text: string): Promise<unknown>;
}

export interface SseMessage {
  readonly event?: string;
  readonly id?: string;
  readonly retry?: number;
  readonly data: string;
}

/**
 * One SSE frame, byte for byte what hono's `writeSSE` writes: `event:`, one `data:` line per
 * line of `data`, `id:`, `retry:`, then a blank line. An `event` or `id` with a line break is
 * a programmer mistake (it would start another field): it throws, as hono's does.
 */
export function sseFrame(message: SseMessage): string {
  for (const value of [message.event, message.id]) {
    if (value !== undefined && /[\r\n]/.test(value))
      throw new Error('SSE event and id must not contain "\\r" or "\\n"');
  }
  const data = /[\r\n]/.test(message.data)
    ? message.data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}`)
        .join('\n')
    : `data: ${message.data}`;
  let frame = message.event === undefined || message.event === '' ? '' : `event: ${message.event}\n`;
  frame += data;
  if (message.id !== undefined) frame += `\nid: ${message.id}`;
  if (message.retry !== undefined) frame += `\nretry: ${message.retry}`;
  return `${frame}\n\n`;
}

// Batches with frames waiting, flushed together once the callback and promise chain that
// queued them has run (one shared nextTick: after the microtasks, before any I/O or timer —
// a setImmediate instead put each write behind the poll phase's I/O: p50 latency up ×5 at 300 streams).
const dirty = new Set<FrameBatch>();
let flushScheduled = false;

function flushDirty(): void {
  flushScheduled = false;
  const batches = [...dirty];
  dirty.clear();
  for (const batch of batches) batch.flush();
}

/**
 * The frames one stream writes, coalesced: every frame added while one callback and its
 * promise chain run goes out in one `write` (the events a run logs together — a reason, its
 * act and its observation — cost one pass through the response stream and one socket write,
 * not three).
 *
 * Backpressure is kept: `add` returns the previous write while the response has not taken it
 * yet, and the writer awaits it before taking its next event — so a slow reader holds at most
 * one batch in flight plus the frame being added, as before one event did.
 */
export class FrameBatch {
  readonly #sink: FrameSink;
  #text = '';
  #inFlight: Promise<unknown> | undefined;

  constructor(sink: FrameSink) {
    this.#sink = sink;
  }

  /** The previous batch is still being taken by the response (a slow reader). */
  get busy(): boolean {
    return this.#inFlight !== undefined;
  }

  /** Queues `frame` for this turn's write; the promise (if any) is the write the caller must wait for. */
  add(frame: string): Promise<unknown> | undefined {
    this.#text += frame;
    dirty.add(this);
    if (!flushScheduled) {
      flushScheduled = true;
      nextTick(flushDirty);
    }
    return this.#inFlight;
  }

  /** Writes what is queued now (called once the chain that queued it has run, and by `drain`). */
  flush(): void {
    dirty.delete(this);
    if (this.#text === '') return;
    const text = this.#text;
    this.#text = '';
    const written: Promise<unknown> = this.#sink.write(text).then(() => {
      if (this.#inFlight === written) this.#inFlight = undefined;
    });
    this.#inFlight = written;
  }

  /** Writes what is queued and waits until the response has taken everything. */
  async drain(): Promise<void> {
    this.flush();
    while (this.#inFlight !== undefined) await this.#inFlight;
  }
}

// One interval per keep-alive period, shared by every stream with that period.
const keepAlives = new Map<number, { timer: ReturnType<typeof setInterval>; beats: Set<() => void> }>();

/**
 * Calls `beat` every `everyMs` (on a timer shared by all the streams with that period, not one
 * per stream); returns the function that stops it. A stream's first beat comes at most
 * `everyMs` after it starts.
 */
export function everyKeepAlive(everyMs: number, beat: () => void): () => void {
  let group = keepAlives.get(everyMs);
  if (group === undefined) {
    const beats = new Set<() => void>();
    const timer = setInterval(() => {
      for (const each of beats) each();
    }, everyMs);
    group = { timer, beats };
    keepAlives.set(everyMs, group);
  }
  const { beats, timer } = group;
  beats.add(beat);
  return () => {
    beats.delete(beat);
    if (beats.size > 0 || keepAlives.get(everyMs)?.timer !== timer) return;
    clearInterval(timer);
    keepAlives.delete(everyMs);
  };
}
