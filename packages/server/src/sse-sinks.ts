import type { ServerResponse } from 'node:http';
import type { SSEStreamingApi } from 'hono/streaming';

/**
 * Where a run's SSE frames go: straight to Node's `ServerResponse` (the fast path, see
 * `sse-direct.ts`), or hono's `streamSSE` web stream (any other runtime, `app.request()`).
 */
export interface SseSink {
  /**
   * Writes one frame. `undefined` when the response took it at once; otherwise a promise that
   * resolves once it has (or the client is gone): the writer waits before taking another event.
   */
  write(frame: string): Promise<void> | undefined;
  /** The client is gone or the stream has ended. */
  readonly closed: boolean;
  /** A write still waits for the client: a keep-alive would only queue behind it. */
  readonly busy: boolean;
  /** Calls `onGone` once if the client goes away before `end()`; returns the unsubscribe. */
  onGone(onGone: () => void): () => void;
  end(): void;
}

/** A sink over Node's response: `write()`'s return and `'drain'` for backpressure, `'close'` for a disconnect. */
export function responseSink(res: ServerResponse): SseSink {
  // The headers go out with the first frame (one write); a stream with nothing to send yet
  // (a run queued for a worker, or followed from its last event) still gets them at once.
  // Not `headersSent`: that is true once `writeHead` has stored them, before they are sent.
  let wrote = false;
  setImmediate(() => {
    if (!wrote && !res.destroyed && !res.writableEnded) res.flushHeaders();
  });
  return {
    write(frame) {
      if (res.destroyed || res.writableEnded) return undefined;
      wrote = true;
      if (res.write(frame)) return undefined;
      return new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    get closed() {
      return res.destroyed || res.writableEnded;
    },
    get busy() {
      return res.writableNeedDrain;
    },
    onGone(onGone) {
      if (res.destroyed) {
        onGone();
        return () => undefined;
      }
      const onClose = (): void => {
        if (!res.writableFinished) onGone();
      };
      res.once('close', onClose);
      return () => res.off('close', onClose);
    },
    end() {
      if (!res.destroyed && !res.writableEnded) res.end();
    },
  };
}

/** A sink over hono's `streamSSE` stream (the fallback); `signal` is the request's. */
export function honoSink(stream: SSEStreamingApi, signal: AbortSignal): SseSink {
  let pending = 0;
  return {
    write(frame) {
      pending++;
      return stream.write(frame).then(
        () => void pending--,
        () => void pending--,
      );
    },
    get closed() {
      return stream.closed || stream.aborted;
    },
    get busy() {
      return pending > 0;
    },
    onGone(onGone) {
      stream.onAbort(onGone);
      if (signal.aborted) {
        onGone(); // gone already (while the run was being started)
        return () => undefined;
      }
      signal.addEventListener('abort', onGone, { once: true });
      return () => signal.removeEventListener('abort', onGone);
    },
    end() {
      // streamSSE closes the stream when its callback returns.
    },
  };
}
