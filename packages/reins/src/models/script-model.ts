import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { estimateTokens, type Model, type ModelRequest, type ModelResult, type Usage } from '../model.js';
import { checkScriptReply } from './script-reply.js';

/**
 * One scripted reply. A string is the raw reply text; `{text, delayMs}` adds latency;
 * `{toolCalls}` replays native tool calls (`arguments` a JSON string or an object; `id`
 * defaults to `call_<n>`); `{error}` makes the call fail as data (`timeout`, `http_500`, or
 * any error code).
 */
export type ScriptReply =
  | string
  | {
      readonly text: string;
      readonly delayMs?: number;
      readonly usage?: Usage;
      readonly toolCalls?: readonly ScriptToolCall[];
    }
  | {
      readonly toolCalls: readonly ScriptToolCall[];
      readonly text?: string;
      readonly delayMs?: number;
      readonly usage?: Usage;
    }
  | { readonly error: string; readonly delayMs?: number; readonly message?: string };

export interface ScriptToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/** Parses a JSONL script (blank lines and lines starting with `//` are skipped). Throws with the line number. */
export function parseScript(jsonl: string): ScriptReply[] {
  const replies: ScriptReply[] = [];
  jsonl.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//')) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (thrown) {
      throw new SyntaxError(`script line ${i + 1}: not JSON (${(thrown as Error).message})`, {
        cause: thrown,
      });
    }
    const reply = checkScriptReply(value);
    if (!reply.ok) {
      throw new TypeError(
        `script line ${i + 1}: expected a string, {"text", "delayMs"}, {"toolCalls"} or {"error"}: ${reply.message}`,
      );
    }
    replies.push(reply.value);
  });
  return replies;
}

const ERROR_ALIASES: ReadonlyMap<string, ErrorCode> = new Map([
  ['timeout', 'TIMEOUT'],
  ['http_500', 'SERVICE_UNAVAILABLE'],
  ['http_503', 'SERVICE_UNAVAILABLE'],
  ['http_429', 'RATE_LIMITED'],
]);

/**
 * Replays replies in order, for tests and reproductions. Records every request; fails (as
 * data) when the script runs out; `assertComplete()` throws if replies were left unused.
 */
export class ScriptModel implements Model {
  readonly name: string;
  readonly calls: ModelRequest[] = [];
  readonly #replies: readonly ScriptReply[];
  #next = 0;

  constructor(replies: readonly ScriptReply[], options: { name?: string } = {}) {
    this.#replies = replies.map((reply, i) => {
      const checked = checkScriptReply(reply);
      if (!checked.ok) throw new TypeError(`script reply ${i + 1}: ${checked.message}`);
      return checked.value;
    });
    this.name = options.name ?? 'script';
  }

  get remaining(): number {
    return this.#replies.length - this.#next;
  }

  async call(request: ModelRequest): Promise<ModelResult> {
    this.calls.push(request);
    const reply = this.#replies[this.#next];
    if (reply === undefined) {
      return {
        ok: false,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: `script exhausted after ${this.#replies.length} replies`,
        },
      };
    }
    this.#next++;
    const delayMs = typeof reply === 'string' ? 0 : (reply.delayMs ?? 0);
    // The signal is read only when the reply takes time: a zero-latency reply cannot be
    // interrupted, and reading it makes the run create its AbortController.
    if (delayMs > 0 && !(await sleep(delayMs, request.signal))) {
      return { ok: false, error: { code: 'CANCELLED', message: 'aborted while waiting for the model' } };
    }
    if (typeof reply !== 'string' && 'error' in reply) {
      const code =
        ERROR_ALIASES.get(reply.error) ??
        (ERROR_CODES.includes(reply.error as ErrorCode) ? (reply.error as ErrorCode) : 'SERVICE_UNAVAILABLE');
      return { ok: false, error: { code, message: reply.message ?? `scripted failure: ${reply.error}` } };
    }
    const text = typeof reply === 'string' ? reply : (reply.text ?? '');
    const usage =
      typeof reply === 'string' || reply.usage === undefined
        ? {
            inputTokens: Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4),
            outputTokens: estimateTokens(text),
          }
        : reply.usage;
    if (typeof reply === 'string' || reply.toolCalls === undefined) return { ok: true, text, usage };
    const toolCalls = reply.toolCalls.map((call, i) => ({
      id: call.id ?? `call_${this.#next}_${i + 1}`,
      name: call.name,
      arguments: call.arguments,
    }));
    return { ok: true, text, usage, toolCalls };
  }

  /** Throws when scripted replies were left unused: the test did not go where it meant to. */
  assertComplete(): void {
    if (this.remaining > 0) {
      throw new Error(`script model: ${this.remaining} of ${this.#replies.length} replies were never used`);
    }
  }
}

export function scriptModel(replies: readonly ScriptReply[], options?: { name?: string }): ScriptModel {
  return new ScriptModel(replies, options);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
