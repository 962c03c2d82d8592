import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { McpDeps } from './options.js';

/**
 * Decides whether a stdio server honours cancellation. After we cancel a request
 * (`notifications/cancelled`, sent by the SDK on abort and on timeout), the server has
 * `graceMs` to show it is still itself: it must answer a side-effect-free probe
 * (`tools/list`) in that time, and must not keep reporting progress for the cancelled
 * request. Either failure calls `onIgnored` — the bridge then signals the process and
 * restarts it. (A server that stopped the work cleanly answers the probe and goes quiet;
 * we cannot see more than that over the wire.)
 */
export class CancelWatchdog {
  readonly #graceMs: number;
  readonly #deps: Pick<McpDeps, 'setTimer' | 'clearTimer'>;
  readonly #probe: (timeoutMs: number) => Promise<unknown>;
  readonly #onIgnored: (why: string) => void;
  readonly #watched = new Map<string, unknown>();
  #stopped = false;

  constructor(
    graceMs: number,
    deps: Pick<McpDeps, 'setTimer' | 'clearTimer'>,
    probe: (timeoutMs: number) => Promise<unknown>,
    onIgnored: (why: string) => void,
  ) {
    this.#graceMs = graceMs;
    this.#deps = deps;
    this.#probe = probe;
    this.#onIgnored = onIgnored;
  }

  outbound(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'notifications/cancelled') return;
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id === 'string' || typeof id === 'number') this.#watch(String(id));
  }

  inbound(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'notifications/progress') return;
    const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
    if (this.#watched.has(String(token))) this.#ignored('it kept reporting progress on a cancelled request');
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#watched.values()) this.#deps.clearTimer(timer);
    this.#watched.clear();
  }

  #watch(id: string): void {
    if (this.#stopped) return;
    const old = this.#watched.get(id);
    if (old !== undefined) this.#deps.clearTimer(old);
    this.#watched.set(
      id,
      this.#deps.setTimer(() => this.#watched.delete(id), this.#graceMs),
    );
    this.#probe(this.#graceMs).catch(() =>
      this.#ignored(`it did not answer within ${this.#graceMs} ms of a cancellation`),
    );
  }

  #ignored(why: string): void {
    if (this.#stopped) return;
    this.stop();
    this.#onIgnored(why);
  }
}
