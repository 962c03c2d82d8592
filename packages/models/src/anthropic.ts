import {
  estimateTokens,
  type ChatMessage,
  type ErrorCode,
  type Model,
  type ModelRequest,
  type ModelResult,
} from 'reins';
import { failureFromResponse, failureFromThrown } from './http-failure.js';
import { nodeHttpPost, type HttpPost, type HttpResponse } from './http-post.js';
import { callBudget } from './call-budget.js';
import { MALFORMED, MALFORMED_STREAM, TRUNCATED_STREAM, sseJson } from './sse-data.js';

export interface AnthropicOptions {
  /** e.g. `claude-sonnet-4-5`, `claude-haiku-4-5`. */
  readonly model: string;
  readonly apiKey: string;
  /** Default `https://api.anthropic.com`. */
  readonly baseURL?: string;
  /** Required by the API; default 1024. */
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly stream?: boolean;
  readonly onDelta?: (text: string) => void;
  /** Per request; the run's signal aborts it earlier. Default 60 000. */
  readonly timeoutMs?: number;
  /** Default `2023-06-01`. */
  readonly version?: string;
  readonly post?: HttpPost;
}

interface AnthropicMessage {
  content?: { type?: string; text?: string }[];
  usage?: { input_tokens?: number; output_tokens?: number };
}

interface StreamEvent {
  type?: string;
  message?: { usage?: { input_tokens?: number; output_tokens?: number } };
  delta?: { type?: string; text?: string };
  usage?: { output_tokens?: number };
  error?: { type?: string; message?: string };
}

/**
 * Anthropic's Messages API over node:http(s). The system prompt goes in `system`; the
 * conversation alternates user / assistant (adjacent turns of one role are joined). Honours
 * the `Model` contract: never throws, failures are data (`overloaded_error`/529 →
 * `SERVICE_UNAVAILABLE`, also when it arrives mid-stream).
 */
export function anthropic(options: AnthropicOptions): Model {
  const baseURL = (options.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  const post = options.post ?? nodeHttpPost;
  const timeoutMs = options.timeoutMs ?? 60_000;
  return {
    name: `anthropic:${options.model}`,
    async call(request: ModelRequest): Promise<ModelResult> {
      const { signal, stopped } = callBudget(request, timeoutMs);
      try {
        const headers = {
          'content-type': 'application/json',
          'x-api-key': options.apiKey,
          'anthropic-version': options.version ?? '2023-06-01',
        };
        const response = await post(
          `${baseURL}/v1/messages`,
          headers,
          JSON.stringify(body(options, request)),
          signal,
        );
        if (response.status < 200 || response.status > 299) {
          const failure = await failureFromResponse(response);
          return stopped() ?? { ok: false, error: failure };
        }
        return options.stream === true
          ? await readStream(response, request, options.onDelta)
          : await readMessage(response, request);
      } catch (thrown) {
        return stopped() ?? { ok: false, error: failureFromThrown(thrown, request.signal) };
      }
    },
  };
}

function body(options: AnthropicOptions, request: ModelRequest): Record<string, unknown> {
  const system = request.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? 1024,
    ...(system === '' ? {} : { system }),
    messages: alternate(request.messages.filter((m) => m.role !== 'system')),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.stream === true ? { stream: true } : {}),
  };
}

/** The API wants user / assistant turns alternating, starting with the user. */
function alternate(messages: readonly ChatMessage[]): { role: 'user' | 'assistant'; content: string }[] {
  const turns: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const { role, content } of messages) {
    const speaker = role === 'assistant' ? 'assistant' : 'user';
    const last = turns.at(-1);
    if (last?.role === speaker) last.content = `${last.content}\n\n${content}`;
    else if (turns.length === 0 && speaker === 'assistant')
      turns.push({ role: 'user', content: '(continue)' }, { role: speaker, content });
    else turns.push({ role: speaker, content });
  }
  return turns;
}

async function readMessage(response: HttpResponse, request: ModelRequest): Promise<ModelResult> {
  let message: AnthropicMessage;
  try {
    message = JSON.parse(await response.text()) as AnthropicMessage;
  } catch (thrown) {
    if (!(thrown instanceof SyntaxError)) throw thrown;
    return {
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed response' },
    };
  }
  const text = (message.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
  return {
    ok: true,
    text,
    usage: {
      inputTokens: message.usage?.input_tokens ?? estimatedInput(request),
      outputTokens: message.usage?.output_tokens ?? estimateTokens(text),
    },
  };
}

async function readStream(
  response: HttpResponse,
  request: ModelRequest,
  onDelta: ((text: string) => void) | undefined,
): Promise<ModelResult> {
  const parts: string[] = [];
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let ended = false;
  for await (const parsed of sseJson(response.body)) {
    if (parsed === MALFORMED) return MALFORMED_STREAM;
    const event = parsed as StreamEvent;
    if (event.type === 'message_start') inputTokens = event.message?.usage?.input_tokens;
    else if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
      const text = event.delta.text ?? '';
      parts.push(text);
      onDelta?.(text);
      request.onDelta?.(text);
    } else if (event.type === 'message_delta') outputTokens = event.usage?.output_tokens ?? outputTokens;
    else if (event.type === 'error') {
      const message = `${event.error?.type ?? 'error'}: ${event.error?.message ?? 'stream error'}`;
      return { ok: false, error: { code: codeForStreamError(event.error?.type), message } };
    } else if (event.type === 'message_stop') {
      ended = true;
      break;
    }
  }
  if (!ended) return TRUNCATED_STREAM;
  const text = parts.join('');
  return {
    ok: true,
    text,
    usage: {
      inputTokens: inputTokens ?? estimatedInput(request),
      outputTokens: outputTokens ?? estimateTokens(text),
    },
  };
}

/** Anthropic's error types, as the loop's codes (a rate limit is worth a retry). */
function codeForStreamError(type: string | undefined): ErrorCode {
  if (type === 'overloaded_error' || type === 'api_error') return 'SERVICE_UNAVAILABLE';
  if (type === 'rate_limit_error') return 'RATE_LIMITED';
  if (type === 'authentication_error' || type === 'permission_error') return 'PERMISSION_DENIED';
  return 'INVALID_PARAMETER';
}

function estimatedInput(request: ModelRequest): number {
  return Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4);
}
