import type { ErrorCode } from './errors.js';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** A tool as a model sees it: name, description and the JSON Schema of its input. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
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
