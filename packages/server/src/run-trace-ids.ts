import { webcrypto } from 'node:crypto';

/** A trace id as W3C Trace Context and OTLP spell it: 32 lowercase hex digits, not all zero. */
export const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/**
 * The id generator of the OpenTelemetry SDK that `startTracingFromEnv` sets up (it has the
 * shape of the SDK's `IdGenerator`, without importing the SDK). Random ids, as the SDK's own,
 * except that a run's trace id is chosen when the run is admitted — so it is stored with the
 * run before the run starts, and a run rebuilt from its log (after a restart, or by a worker of
 * the shared mode) is traced under the same id — and its `reins.run` span, started later as a
 * root, gets it (`withTraceId`).
 */
export class RunTraceIds {
  #next: string | undefined;

  /** A new random trace id, for a run about to be admitted. */
  newTraceId(): string {
    return randomHex(16);
  }

  /** Calls `start`; a root span it starts (synchronously) gets `traceId`. */
  withTraceId<T>(traceId: string, start: () => T): T {
    this.#next = traceId;
    try {
      return start();
    } finally {
      this.#next = undefined;
    }
  }

  generateTraceId(): string {
    const chosen = this.#next;
    this.#next = undefined;
    return chosen ?? randomHex(16);
  }

  generateSpanId(): string {
    return randomHex(8);
  }
}

function randomHex(bytes: number): string {
  const buffer = webcrypto.getRandomValues(new Uint8Array(bytes));
  if (buffer.every((b) => b === 0)) buffer[bytes - 1] = 1; // all-zero ids are invalid
  return Buffer.from(buffer).toString('hex');
}
