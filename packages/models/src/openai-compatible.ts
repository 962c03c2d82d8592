import {
  estimateTokens,
  type Model,
  type ModelFailure,
  type ModelRequest,
  type ModelResult,
  type Usage,
} from 'reins';
import { failureFromResponse, failureFromThrown } from './http-failure.js';
import { DONE, MALFORMED, MALFORMED_STREAM, TRUNCATED_STREAM, sseJson } from './sse-data.js';
import { nodeHttpPost, type HttpPost, type HttpResponse } from './http-post.js';
import { callBudget } from './call-budget.js';

export interface OpenAiCompatibleOptions {
  /** The provider's model name, e.g. `gpt-4o-mini`, `deepseek-chat`, `qwen-plus`, `llama3.1`. */
  readonly model: string;
  /** Sent as a Bearer token; leave out for local servers (Ollama, vLLM, llama.cpp). */
  readonly apiKey?: string;
  /** Default `https://api.openai.com/v1`; e.g. `http://127.0.0.1:11434/v1` for Ollama. */
  readonly baseURL?: string;
  /** Ask for a JSON object (`response_format: json_object`); default true — the loop expects JSON. */
  readonly jsonMode?: boolean;
  /** Stream the reply (SSE); text deltas go to `onDelta`. Default false. */
  readonly stream?: boolean;
  readonly onDelta?: (text: string) => void;
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** Per request; the run's signal aborts it earlier. Default 60 000. */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Injectable transport; default node:http(s), which closes the socket on abort. */
  readonly post?: HttpPost;
}

interface ChatCompletion {
  choices?: { message?: { content?: string | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

interface ChatCompletionChunk {
  error?: { message?: unknown } | null;
  choices?: { delta?: { content?: string | null } }[] | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * An OpenAI-compatible Chat Completions model (OpenAI, DeepSeek, Qwen/DashScope, Ollama,
 * vLLM, llama.cpp) over plain `fetch`. Honours the `Model` contract: never throws, every
 * failure is data with a code (`RATE_LIMITED`, `SERVICE_UNAVAILABLE`, `TIMEOUT`, `CANCELLED`,
 * …), and the run's signal aborts the HTTP request itself.
 */
export function openAiCompatible(options: OpenAiCompatibleOptions): Model {
  const baseURL = (options.baseURL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const post = options.post ?? nodeHttpPost;
  const timeoutMs = options.timeoutMs ?? 60_000;
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
        const response = await post(`${baseURL}/chat/completions`, headers, body, signal);
        if (response.status < 200 || response.status > 299) {
          const failure = await failureFromResponse(response);
          return stopped() ?? failed(failure);
        }
        return options.stream === true
          ? await readStream(response, request, options.onDelta)
          : await readCompletion(response, request);
      } catch (thrown) {
        return stopped() ?? failed(failureFromThrown(thrown, request.signal));
      }
    },
  };
}

function requestBody(options: OpenAiCompatibleOptions, request: ModelRequest): Record<string, unknown> {
  return {
    model: options.model,
    messages: request.messages.map(({ role, content }) => ({ role, content })),
    ...(options.jsonMode === false ? {} : { response_format: { type: 'json_object' } }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    ...(options.stream === true ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

async function readCompletion(response: HttpResponse, request: ModelRequest): Promise<ModelResult> {
  let body: ChatCompletion;
  try {
    body = JSON.parse(await response.text()) as ChatCompletion;
  } catch (thrown) {
    if (!(thrown instanceof SyntaxError)) throw thrown; // a broken connection: failure data above
    return {
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the provider sent a malformed response' },
    };
  }
  const text = body.choices?.[0]?.message?.content ?? '';
  return { ok: true, text, usage: usageOf(body.usage, request, text) };
}

async function readStream(
  response: HttpResponse,
  request: ModelRequest,
  onDelta: ((text: string) => void) | undefined,
): Promise<ModelResult> {
  const parts: string[] = [];
  let reported: ChatCompletionChunk['usage'];
  let ended = false;
  for await (const parsed of sseJson(response.body)) {
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
    const delta = chunk.choices?.[0]?.delta?.content;
    if (typeof delta === 'string' && delta !== '') {
      parts.push(delta);
      onDelta?.(delta);
      request.onDelta?.(delta);
    }
    if (chunk.usage != null) reported = chunk.usage;
  }
  if (!ended) return TRUNCATED_STREAM;
  const text = parts.join('');
  return { ok: true, text, usage: usageOf(reported, request, text) };
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
