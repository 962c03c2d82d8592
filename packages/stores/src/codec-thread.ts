import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { PromptTexts } from './codec/index.js';
import { plainJson } from './codec/plain-json.js';
import type { CodecHost, Encoded } from './codec-host.js';
import type { CodecReply, CodecRequest } from './codec-protocol.js';
import { WriterStates } from './writer-states.js';

/** The built worker (under vitest this module is the TypeScript source: its build is used). */
const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? '../dist/codec-worker.js' : './codec-worker.js',
  import.meta.url,
);

interface Waiting {
  readonly resolve: (encoded: Encoded) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The codec states in a worker thread (`codec-worker.ts`): encoding an event — ~150 µs of a
 * kitchen run's event, the largest part of an append — leaves this thread, which sends the
 * event's JSON form (~8 µs) and gets the bodies back. This side mirrors which runs the thread
 * holds and their next `seq` (bounded like `localCodecHost`; an evicted run is dropped there
 * too). The thread starts at the first run and is not kept alive for its own sake (unref'd
 * while nothing waits on it); if it dies, what waits on it fails and every run's state is
 * rebuilt from its stored rows at its next append, in a new thread. The thread learns the
 * shared prompt texts from the runs it encodes and resumes, not from every run this side reads:
 * until it has met a text in two runs, its bodies may hold it inline where this side's would
 * refer to it (both decode alike).
 */
export function threadCodecHost(
  texts: PromptTexts | undefined,
  maxStates: number,
  startWorker: (url: URL, options: WorkerOptions) => Worker = (url, options) => new Worker(url, options),
): CodecHost {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, Waiting>();
  /**
   * What the thread holds, by run: a state object each, so an answer moves on only the state
   * its request was made from (not one resumed or evicted and started again meanwhile).
   */
  const counts = new WriterStates<{ next: number }>(maxStates, (runId) =>
    post({ type: 'drop', runId }, false),
  );

  let closed = false;

  function spawn(): Worker {
    const thread = startWorker(WORKER, { workerData: { texts: texts !== undefined } });
    thread.unref();
    thread.on('message', (reply: CodecReply) => {
      const waiter = waiting.get(reply.id);
      if (waiter === undefined) return;
      waiting.delete(reply.id);
      if (waiting.size === 0) thread.unref();
      if (reply.ok) waiter.resolve({ bodies: reply.bodies, usedTexts: new Map(reply.usedTexts) });
      else waiter.reject(new Error(reply.message));
    });
    const lost = (error: Error) => {
      if (worker !== thread) return;
      worker = undefined;
      counts.clear(); // the states went with it: each run is rebuilt from its rows
      const waiters = [...waiting.values()];
      waiting.clear();
      for (const waiter of waiters) waiter.reject(error);
    };
    thread.on('error', lost);
    thread.on('exit', (code) => lost(new Error(`the codec thread exited (code ${code})`)));
    return thread;
  }

  /** Sends a request; `start`: a thread is started for it when none runs (a drop needs none). */
  function post(request: CodecRequest, start = true): void {
    if (worker === undefined && !start) return;
    (worker ??= spawn()).postMessage(request);
  }

  function drop(runId: string): void {
    counts.drop(runId);
    post({ type: 'drop', runId }, false);
  }

  /** Sends an encode request; a value structured clone refuses (a Proxy) goes as its JSON, as encoding here would read it. */
  function sendEncode(thread: Worker, request: CodecRequest & { type: 'encode' }): void {
    try {
      thread.postMessage(request);
    } catch (error) {
      if (!(error instanceof Error && error.name === 'DataCloneError')) throw error;
      thread.postMessage({
        ...request,
        events: JSON.parse(JSON.stringify(request.events)) as typeof request.events,
      });
    }
  }

  return {
    keepsLoaded: false,
    count: (runId) => counts.get(runId)?.next,
    // After `close` no state is taken and no thread started again (a `create` that ended after
    // the store closed): the next encode is refused.
    start(runId) {
      if (closed) return;
      counts.set(runId, { next: 0 });
      post({ type: 'start', runId });
    },
    resume(runId, codec, bodies) {
      if (closed) return;
      counts.set(runId, { next: codec.count });
      post({ type: 'resume', runId, bodies, texts: texts?.heldIn(bodies) ?? [] });
    },
    encode(runId, events) {
      if (closed) return Promise.reject(new Error('the codec thread was closed'));
      const state = counts.get(runId);
      if (state === undefined) return Promise.reject(new Error(`codec: no state held for run ${runId}`));
      let plain: ReturnType<typeof plainJson>[];
      try {
        plain = events.map((event) => plainJson(event)); // BigInt, a cycle: throws here, as encoding would
      } catch (error) {
        drop(runId);
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      const id = nextId++;
      return new Promise<Encoded>((resolve, reject) => {
        const thread = worker ?? spawn();
        worker = thread;
        try {
          sendEncode(thread, { type: 'encode', id, runId, events: plain });
        } catch (error) {
          drop(runId);
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        waiting.set(id, {
          resolve: (encoded) => {
            // Only the state the request was made from: one evicted, dropped or resumed
            // meanwhile is not moved on (an evicted run's next append rebuilds it).
            if (counts.get(runId) === state) state.next += events.length;
            resolve(encoded);
          },
          reject: (error) => {
            if (counts.get(runId) === state) counts.drop(runId); // the thread dropped it too
            reject(error);
          },
        });
        if (waiting.size === 1) thread.ref();
      });
    },
    drop,
    async close() {
      closed = true;
      const thread = worker;
      worker = undefined;
      counts.clear();
      const waiters = [...waiting.values()];
      waiting.clear();
      for (const waiter of waiters) waiter.reject(new Error('the codec thread was closed'));
      await thread?.terminate();
    },
  };
}
