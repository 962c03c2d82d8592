import type { ErrorCode } from './errors.js';

/**
 * A tool call the provider returned through its native tool-calling channel. `arguments`
 * is what the provider sent: a JSON string (OpenAI-style) or an object (Anthropic-style);
 * the loop parses it with the central parser (one repair), never trusting it.
 */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/**
 * One prompt message. `assistant` may carry the native tool calls it made; each is answered
 * by a `tool` message with the call's id. The loop sends `tool` messages only on steps that
 * offer tools (on the last step the same history is sent as plain text).
 */
export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCall[] }
  | {
      readonly role: 'tool';
      readonly content: string;
      readonly toolCallId: string;
      readonly name: string;
    };

/** A tool as a model sees it: name, description and the JSON Schema of its input. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** The tool changes nothing (`Tool.readOnly`), filled by the loop; e.g. a reply cache keys on it. */
  readonly readOnly?: boolean;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  /** Empty on the last step: no tools are offered then. */
  readonly tools: readonly ToolSpec[];
  readonly signal: AbortSignal;
  /** The run this call belongs to (for sticky routing and logs). */
  readonly runId?: string;
  /**
   * Who the run is for (the run's principal id; absent for an anonymous run), so a router can
   * keep one user on one model across runs (a gradual rollout). Fall back to `runId`.
   */
  readonly userKey?: string;
  /** The longest this call may take (the run's model timeout): adapters must not wait longer. */
  readonly timeoutMs?: number;
  /**
   * Streaming adapters report text as it arrives; the run turns it into `progress` step
   * events. Calls after the model call settled are ignored.
   */
  onDelta?(text: string): void;
  /** 1-based model step within the run, and whether it is the last one allowed. */
  readonly step: number;
  readonly finalStep: boolean;
}

export interface ModelFailure {
  readonly code: ErrorCode;
  readonly message: string;
}

export type ModelResult =
  | {
      readonly ok: true;
      readonly text: string;
      readonly usage: Usage;
      /** Which model answered, when a router or fallback chose one (default: the model's name). */
      readonly model?: string;
      /**
       * Why this model answered, when a composed stack chose it (e.g. `role planner; fallback
       * after TIMEOUT from anthropic:x`, `cache hit`); copied to the step's `reason` event.
       */
      readonly route?: string;
      /**
       * Native tool calls (several are allowed in one turn). When present and non-empty they
       * are the decision; `text` is then the model's thought.
       */
      readonly toolCalls?: readonly ToolCall[];
    }
  | { readonly ok: false; readonly error: ModelFailure; readonly usage?: Usage };

/**
 * One model call: messages (and tool specs) in, raw text and usage out.
 *
 * Contract: `call` never throws and never rejects. Every failure — HTTP error, timeout,
 * abort — is returned as `{ ok: false, error: { code } }` (`CANCELLED` after the signal
 * aborted). When `signal` aborts, the call settles promptly and frees what it holds.
 * The loop still guards against a broken adapter and reports that as `INTERNAL`.
 */
export interface Model {
  readonly name: string;
  /** True for models that produce canned, non-AI answers (the `demo` model). */
  readonly demo?: boolean;
  /** A composed model's description (retries, fallbacks, roles, rollout, cache): the `start` event's `modelStack`. */
  readonly stack?: string;
  call(request: ModelRequest): Promise<ModelResult>;
}

export const NO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/** Rough token count for models that do not report one (≈ 4 characters per token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}
