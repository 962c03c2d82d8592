import {
  estimateTokens,
  type ChatMessage,
  type Model,
  type ModelFailure,
  type ModelRequest,
  type ModelResult,
  type ToolCall,
  type Usage,
} from 'reins';
import { failureFromResponse, failureFromThrown } from './http-failure.js';
import { DONE, MALFORMED, MALFORMED_STREAM, TRUNCATED_STREAM, sseJson } from './sse-data.js';
import { nodeHttpPost, type HttpPost } from './http-post.js';
import { callBudget } from './call-budget.js';
import { cappedBody, replyCap, replyText } from './reply-cap.js';
import { endpointOf } from './endpoint.js';

export interface OpenAiCompatibleOptions {
  /** The provider's model name, e.g. `gpt-4o-mini`, `deepseek-chat`, `qwen-plus`, `llama3.1`. */
  readonly model: string;
  /** Sent as a Bearer token; leave out for local servers (Ollama, vLLM, llama.cpp). */
  readonly apiKey?: string;
  /** Default `https://api.openai.com/v1`; e.g. `http://127.0.0.1:11434/v1` for Ollama. */
  readonly baseURL?: string;
  /** Ask for a JSON object (`response_format: json_object`); default true — the loop expects JSON. */
  readonly jsonMode?: boolean;
  /**
   * `native` (default): tools go in the request's `tools` and the provider's `tool_calls`
   * (several per turn allowed) become the decision. `text`: no `tools` parameter; the model
   * writes its decision as JSON (for servers or models without function calling).
   */
  readonly toolCalling?: 'native' | 'text';
  /** Stream the reply (SSE); text deltas go to `onDelta`. Default false. */
  readonly stream?: boolean;
  readonly onDelta?: (text: string) => void;
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Per request; the run's signal aborts it earlier. Default 60 000. */
  readonly timeoutMs?: number;
  /**
   * The most bytes of one reply's body read (JSON or the whole SSE stream); past it the read
   * is aborted and the call fails `LIMIT_EXCEEDED`. Default 262 144 (256 KB).
   */
  readonly maxModelReplyBytes?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Injectable transport; default node:http(s), which closes the socket on abort. */
  readonly post?: HttpPost;
}

interface WireToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatCompletion {
  error?: { message?: unknown } | string | null;
  choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

interface ChatCompletionChunk {
  error?: { message?: unknown } | null;
  choices?:
    | { delta?: { content?: string | null; tool_calls?: (WireToolCall & { index?: number })[] | null } }[]
    | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * An OpenAI-compatible Chat Completions model (OpenAI, DeepSeek, Qwen/DashScope, Ollama,
 * vLLM, llama.cpp) over plain `fetch`. Honours the `Model` contract: never throws, every
 * failure is data with a code (`RATE_LIMITED`, `SERVICE_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`,
 * …), and the run's signal aborts the HTTP request itself.
 */
export function openAiCompatible(options: OpenAiCompatibleOptions): Model {
  const endpoint = endpointOf(options.baseURL ?? 'https://api.openai.com/v1', '/chat/completions');
  const post = options.post ?? nodeHttpPost;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = replyCap(options.maxModelReplyBytes);
  return {
    name: `openai-compatible:${options.model}`,
    async call(request: ModelRequest): Promise<ModelResult> {
      const { signal, stopped } = callBudget(request, timeoutMs);
      const failed = (error: ModelFailure): ModelResult => ({ ok: false, error });
      try {
        const headers = {
          'content-type': 'application/json',
          accept: options.stream === true ? 'text/event-stream' : 'application/json',
          ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
          ...options.headers,
        };
        const body = JSON.stringify(requestBody(options, request));
        const response = await post(endpoint, headers, body, signal);
        if (response.status < 200 || response.status > 299) {
          const failure = await failureFromResponse(response);
          return stopped() ?? failed(failure);
        }
        return options.stream === true
          ? await readStream(cappedBody(response.body, maxBytes), request, options.onDelta)
          : readCompletion(await replyText(response, maxBytes), request);
      } catch (thrown) {
        return stopped() ?? failed(failureFromThrown(thrown, request.signal));
      }
    },
  };
}

function requestBody(options: OpenAiCompatibleOptions, request: ModelRequest): Record<string, unknown> {
  const native = options.toolCalling !== 'text' && request.tools.length > 0;
  return {
    model: options.model,
    messages: request.messages.map(wireMessage),
    ...(native
      ? {
          tools: request.tools.map((spec) => ({
            type: 'function',
            function: { name: spec.name, description: spec.description, parameters: spec.inputSchema },
          })),
        }
      : {}),
    ...(options.jsonMode === false ? {} : { response_format: { type: 'json_object' } }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    ...(options.stream === true ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** More tool calls than any turn needs (the loop runs at most `maxCallsPerStep` of them). */
const MAX_TOOL_CALLS = 128;

/** A prompt message in Chat Completions form (tool calls and their results included). */
function wireMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role === 'tool') {
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
  if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

/** The provider's tool calls, in order; a call without a name is dropped (nothing to run). */
function toolCallsOf(wire: readonly (WireToolCall | undefined)[]): ToolCall[] {
  const calls: ToolCall[] = [];
  wire.forEach((call, i) => {
    const name = call?.function?.name;
    if (typeof name !== 'string' || name === '') return;
    const id = typeof call?.id === 'string' && call.id !== '' ? call.id : `call_${i}`;
    calls.push({ id, name, arguments: call?.function?.arguments ?? '' });
  });
  return calls;
}

/** A whole reply's text (already capped) as a result. */
function readCompletion(raw: string, request: ModelRequest): ModelResult {
  let body: ChatCompletion;
  try {
    body = JSON.parse(raw) as ChatCompletion;
  } catch {
    return {
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed response' },
    };
  }
  // A 2xx that carries an error, or no choice at all, is no answer: failure data, not blank text.
  if (body === null || typeof body !== 'object' || (body.error !== undefined && body.error !== null)) {
    const said = typeof body?.error === 'string' ? body.error : body?.error?.message;
    const message = `the provider answered with an error: ${typeof said === 'string' ? said : 'no details'}`;
    return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message } };
  }
  if (!Array.isArray(body.choices) || body.choices.length === 0) {
    return {
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed response (no choices)' },
    };
  }
  const message = body.choices[0]?.message;
  const text = message?.content ?? '';
  const toolCalls = toolCallsOf(message?.tool_calls ?? []);
  const usage = usageOf(body.usage, request, text + argumentsText(toolCalls));
  return toolCalls.length > 0 ? { ok: true, text, usage, toolCalls } : { ok: true, text, usage };
}

function argumentsText(calls: readonly ToolCall[]): string {
  return calls.map((call) => (typeof call.arguments === 'string' ? call.arguments : '')).join('');
}

async function readStream(
  body: AsyncIterable<Uint8Array>,
  request: ModelRequest,
  onDelta: ((text: string) => void) | undefined,
): Promise<ModelResult> {
  const parts: string[] = [];
  // Tool calls arrive in pieces keyed by `index`: id and name first, arguments in fragments.
  const calls: { id?: string; name: string; args: string }[] = [];
  /** A wire index whose call is in another slot (see below). */
  const moved = new Map<number, number>();
  let reported: ChatCompletionChunk['usage'];
  let ended = false;
  for await (const parsed of sseJson(body)) {
    if (parsed === DONE) {
      ended = true;
      break;
    }
    if (parsed === MALFORMED) return MALFORMED_STREAM;
    const chunk = parsed as ChatCompletionChunk;
    if (chunk.error != null) {
      const message = typeof chunk.error.message === 'string' ? chunk.error.message : 'error in the stream';
      return { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: `stream error: ${message}` } };
    }
    const delta = chunk.choices?.[0]?.delta;
    const content = delta?.content;
    if (typeof content === 'string' && content !== '') {
      parts.push(content);
      onDelta?.(content);
      request.onDelta?.(content);
    }
    for (const piece of delta?.tool_calls ?? []) {
      // Without an index, a piece with an id or a name starts a call; any other continues the last.
      const starts = typeof piece.id === 'string' || typeof piece.function?.name === 'string';
      const index =
        typeof piece.index === 'number'
          ? piece.index
          : starts || calls.length === 0
            ? calls.length
            : calls.length - 1;
      // An index is a position among this turn's calls; anything else is not a stream we can read.
      if (!Number.isInteger(index) || index < 0 || index >= MAX_TOOL_CALLS) return MALFORMED_STREAM;
      // Some servers number every parallel call 0: a new id at a taken index is a new call, and
      // that index's later pieces continue it (their names and arguments were joined).
      let slot = moved.get(index) ?? index;
      const taken = calls[slot];
      if (
        typeof piece.id === 'string' &&
        piece.id !== '' &&
        taken?.id !== undefined &&
        taken.id !== piece.id
      ) {
        slot = calls.length;
        if (slot >= MAX_TOOL_CALLS) return MALFORMED_STREAM;
        moved.set(index, slot);
      }
      const call = (calls[slot] ??= { name: '', args: '' });
      if (typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
      if (typeof piece.function?.name === 'string') call.name += piece.function.name;
      if (typeof piece.function?.arguments === 'string') call.args += piece.function.arguments;
    }
    if (chunk.usage != null) reported = chunk.usage;
  }
  if (!ended) return TRUNCATED_STREAM;
  const text = parts.join('');
  const toolCalls = toolCallsOf(
    Array.from(calls, (call) =>
      call === undefined ? undefined : { id: call.id, function: { name: call.name, arguments: call.args } },
    ),
  );
  const usage = usageOf(reported, request, text + argumentsText(toolCalls));
  return toolCalls.length > 0 ? { ok: true, text, usage, toolCalls } : { ok: true, text, usage };
}

/** The provider's token counts, or estimates when it sent none (some local servers). */
function usageOf(
  reported: { prompt_tokens?: number; completion_tokens?: number } | null | undefined,
  request: ModelRequest,
  text: string,
): Usage {
  const estimatedInput = (): number =>
    Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4);
  return {
    inputTokens: reported?.prompt_tokens ?? estimatedInput(),
    outputTokens: reported?.completion_tokens ?? estimateTokens(text),
  };
}
