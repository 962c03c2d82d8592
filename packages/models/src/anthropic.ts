import {
  estimateTokens,
  type ChatMessage,
  type ErrorCode,
  type Model,
  type ModelRequest,
  type ModelResult,
  type ToolCall,
} from 'reins';
import { failureFromResponse, failureFromThrown } from './http-failure.js';
import { nodeHttpPost, type HttpPost } from './http-post.js';
import { callBudget } from './call-budget.js';
import { cappedBody, replyCap, replyText } from './reply-cap.js';
import { endpointOf } from './endpoint.js';
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
  /**
   * `native` (default): tools go in the request's `tools` and `tool_use` blocks (several per
   * turn allowed) become the decision. `text`: no `tools`; the model writes JSON decisions.
   */
  readonly toolCalling?: 'native' | 'text';
  /** Per request; the run's signal aborts it earlier. Default 60 000. */
  readonly timeoutMs?: number;
  /**
   * The most bytes of one reply's body read (JSON or the whole SSE stream); past it the read
   * is aborted and the call fails `LIMIT_EXCEEDED`. Default 262 144 (256 KB).
   */
  readonly maxModelReplyBytes?: number;
  /** Default `2023-06-01`. */
  readonly version?: string;
  readonly post?: HttpPost;
}

interface ContentBlock {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

interface AnthropicMessage {
  type?: string;
  error?: { type?: string; message?: string };
  content?: ContentBlock[];
  usage?: { input_tokens?: number; output_tokens?: number };
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: { input_tokens?: number; output_tokens?: number } };
  content_block?: ContentBlock;
  delta?: { type?: string; text?: string; partial_json?: string };
  usage?: { output_tokens?: number };
  error?: { type?: string; message?: string };
}

/** A request content block: text, a tool call the model made, or its result. */
type WireBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface WireTurn {
  role: 'user' | 'assistant';
  content: string | WireBlock[];
}

/**
 * Anthropic's Messages API over node:http(s). The system prompt goes in `system`; the
 * conversation alternates user / assistant (adjacent turns of one role are joined). Honours
 * the `Model` contract: never throws, failures are data (`overloaded_error`/529 →
 * `SERVICE_UNAVAILABLE`, also when it arrives mid-stream).
 */
export function anthropic(options: AnthropicOptions): Model {
  const endpoint = endpointOf(options.baseURL ?? 'https://api.anthropic.com', '/v1/messages');
  const post = options.post ?? nodeHttpPost;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = replyCap(options.maxModelReplyBytes);
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
        const response = await post(endpoint, headers, JSON.stringify(body(options, request)), signal);
        if (response.status < 200 || response.status > 299) {
          const failure = await failureFromResponse(response);
          return stopped() ?? { ok: false, error: failure };
        }
        return options.stream === true
          ? await readStream(cappedBody(response.body, maxBytes), request, options.onDelta)
          : readMessage(await replyText(response, maxBytes), request);
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
  const native = options.toolCalling !== 'text' && request.tools.length > 0;
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? 1024,
    ...(system === '' ? {} : { system }),
    messages: alternate(request.messages.filter((m) => m.role !== 'system')),
    ...(native
      ? {
          tools: request.tools.map((spec) => ({
            name: spec.name,
            description: spec.description,
            input_schema: spec.inputSchema,
          })),
        }
      : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.stream === true ? { stream: true } : {}),
  };
}

/**
 * The API wants user / assistant turns alternating, starting with the user. Tool calls
 * become `tool_use` blocks of the assistant turn; their results `tool_result` blocks of the
 * next user turn (adjacent results share one turn, as the API requires).
 */
function alternate(messages: readonly ChatMessage[]): WireTurn[] {
  const turns: WireTurn[] = [];
  for (const message of messages) {
    const speaker = message.role === 'assistant' ? 'assistant' : 'user';
    const content = wireContent(message);
    const last = turns.at(-1);
    if (last?.role === speaker) last.content = join(last.content, content);
    else if (turns.length === 0 && speaker === 'assistant')
      turns.push({ role: 'user', content: '(continue)' }, { role: speaker, content });
    else turns.push({ role: speaker, content });
  }
  return turns;
}

function wireContent(message: ChatMessage): string | WireBlock[] {
  if (message.role === 'tool') {
    return [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }];
  }
  if (message.role !== 'assistant' || message.toolCalls === undefined || message.toolCalls.length === 0) {
    return message.content;
  }
  const uses = message.toolCalls.map((call): WireBlock => ({
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: inputObject(call),
  }));
  // The API refuses empty text blocks.
  return message.content.trim() === '' ? uses : [{ type: 'text', text: message.content }, ...uses];
}

/** `tool_use.input` must be an object; arguments from another provider may be a JSON string. */
function inputObject(call: ToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments;
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function join(a: string | WireBlock[], b: string | WireBlock[]): string | WireBlock[] {
  if (typeof a === 'string' && typeof b === 'string') return `${a}\n\n${b}`;
  // The API refuses blank text blocks.
  const blocks = (c: string | WireBlock[]): WireBlock[] =>
    typeof c !== 'string' ? c : c.trim() === '' ? [] : [{ type: 'text', text: c }];
  return [...blocks(a), ...blocks(b)];
}

function toolUses(blocks: readonly (ContentBlock | undefined)[]): ToolCall[] {
  const calls: ToolCall[] = [];
  blocks.forEach((block, i) => {
    if (block?.type !== 'tool_use' || typeof block.name !== 'string' || block.name === '') return;
    const id = typeof block.id === 'string' && block.id !== '' ? block.id : `toolu_${i}`;
    const input = block.input;
    const args =
      typeof input === 'string'
        ? input
        : input !== null && typeof input === 'object' && !Array.isArray(input)
          ? (input as Record<string, unknown>)
          : '';
    calls.push({ id, name: block.name, arguments: args });
  });
  return calls;
}

/** A whole reply's text (already capped) as a result. */
function readMessage(raw: string, request: ModelRequest): ModelResult {
  let message: AnthropicMessage;
  try {
    message = JSON.parse(raw) as AnthropicMessage;
  } catch {
    return {
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed response' },
    };
  }
  // A 2xx that carries an error, or no content at all, is no answer: failure data, not blank text.
  if (message === null || typeof message !== 'object' || message.type === 'error') {
    const text = `${message?.error?.type ?? 'error'}: ${message?.error?.message ?? 'no details'}`;
    return { ok: false, error: { code: codeForStreamError(message?.error?.type), message: text } };
  }
  if (!Array.isArray(message.content)) {
    return {
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed response (no content)' },
    };
  }
  const blocks = message.content;
  const text = blocks
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('');
  const toolCalls = toolUses(blocks);
  const usage = {
    inputTokens: message.usage?.input_tokens ?? estimatedInput(request),
    outputTokens: message.usage?.output_tokens ?? estimateTokens(text),
  };
  return toolCalls.length > 0 ? { ok: true, text, usage, toolCalls } : { ok: true, text, usage };
}

async function readStream(
  body: AsyncIterable<Uint8Array>,
  request: ModelRequest,
  onDelta: ((text: string) => void) | undefined,
): Promise<ModelResult> {
  const parts: string[] = [];
  // tool_use blocks by index: id and name at content_block_start, input as JSON fragments.
  const uses: { id?: string; name: string; json: string; start?: Record<string, unknown> }[] = [];
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let ended = false;
  for await (const parsed of sseJson(body)) {
    if (parsed === MALFORMED) return MALFORMED_STREAM;
    const event = parsed as StreamEvent;
    const index = event.index;
    const blockIndex = typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < 128;
    if (event.type === 'message_start') inputTokens = event.message?.usage?.input_tokens;
    else if (event.type === 'content_block_start' && event.content_block?.type === 'tool_use') {
      if (!blockIndex) return MALFORMED_STREAM;
      const { id, name, input } = event.content_block;
      // The API starts a tool_use with `input: {}` and streams it; some gateways send it whole
      // here and no delta: kept, used when no fragment follows.
      const whole =
        input !== null && typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length > 0
          ? { start: input as Record<string, unknown> }
          : {};
      uses[index] = {
        ...(typeof id === 'string' ? { id } : {}),
        name: typeof name === 'string' ? name : '',
        json: '',
        ...whole,
      };
    } else if (event.type === 'content_block_delta' && event.delta?.type === 'input_json_delta') {
      const use = blockIndex ? uses[index] : undefined;
      if (use === undefined) return MALFORMED_STREAM;
      use.json += event.delta.partial_json ?? '';
    } else if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
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
  const toolCalls = toolUses(
    Array.from(uses, (use) =>
      use === undefined
        ? undefined
        : {
            type: 'tool_use',
            id: use.id,
            name: use.name,
            input: use.json === '' && use.start !== undefined ? use.start : use.json,
          },
    ),
  );
  const usage = {
    inputTokens: inputTokens ?? estimatedInput(request),
    outputTokens: outputTokens ?? estimateTokens(text),
  };
  return toolCalls.length > 0 ? { ok: true, text, usage, toolCalls } : { ok: true, text, usage };
}

/** Anthropic's error types, as the loop's codes (a rate limit is worth a retry). */
function codeForStreamError(type: string | undefined): ErrorCode {
  if (type === 'overloaded_error' || type === 'api_error') return 'SERVICE_UNAVAILABLE';
  if (type === 'rate_limit_error') return 'RATE_LIMITED';
  if (type === 'authentication_error' || type === 'permission_error') return 'PERMISSION_DENIED';
  if (type === 'not_found_error') return 'NOT_FOUND';
  return 'INVALID_PARAMETER';
}

function estimatedInput(request: ModelRequest): number {
  return Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4);
}
