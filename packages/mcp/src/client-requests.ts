import {
  ProtocolError,
  ProtocolErrorCode,
  type Client,
  type ClientCapabilities,
} from '@modelcontextprotocol/client';
import { estimateTokens, type ChatMessage, type Model, type Principal, type ToolContext } from 'reins';
import { inputSchemaToZod } from './json-schema.js';
import { untrustedText } from './untrusted-text.js';

/** A root the client tells servers about (MCP `roots/list`): a `file://` URI and a label. */
export interface McpRoot {
  readonly uri: string;
  readonly name?: string;
}

/**
 * Answers a server's `sampling/createMessage` with a Reins model, bounded three ways: the
 * reply is cut at `maxTokens`, a connection gets `maxCalls` answers at most, and `admit`
 * (the app's per-principal quota) is asked before each one. Servers ask for sampling only
 * inside one of our tool calls: the principal of that call is the one charged; a request
 * with no call to charge is refused.
 */
export interface McpSamplingOptions {
  readonly model: Model;
  /** Longest reply, in tokens (the request's own `maxTokens` applies when smaller). Default 1,024. */
  readonly maxTokens?: number;
  /** Sampling requests answered per connection. Default 10. */
  readonly maxCalls?: number;
  /** Longest model call. Default 30 s. */
  readonly timeoutMs?: number;
  /**
   * The principal's quota: asked (and expected to count the call) before each sampling
   * call; `false` refuses it. Without it, only `maxCalls` bounds the cost.
   */
  readonly admit?: (principal: Principal) => boolean | Promise<boolean>;
}

/** What a form elicitation asks: a message for a person and a flat JSON Schema for the answer. */
export interface McpElicitation {
  readonly message: string;
  readonly requestedSchema: Readonly<Record<string, unknown>>;
}

export type McpElicitationAnswer =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, unknown>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/**
 * Asks a person (the user of the run in `ctx`, when there is one) and returns the answer.
 * Accepted content is checked against `requestedSchema` (defaults filled in first); content
 * that does not fit is sent as `decline`, never as-is.
 */
export type McpElicitationHandler = (
  request: McpElicitation,
  ctx: ToolContext | undefined,
) => McpElicitationAnswer | Promise<McpElicitationAnswer>;

/** The options that make the client answer server→client requests. */
export interface ClientRequestOptions {
  readonly roots: readonly McpRoot[] | undefined;
  readonly sampling: McpSamplingOptions | undefined;
  readonly elicitation: McpElicitationHandler | 'decline' | undefined;
}

/** The capabilities to advertise: only what has a handler. */
export function clientCapabilities(options: ClientRequestOptions): ClientCapabilities {
  return {
    ...(options.roots === undefined ? {} : { roots: { listChanged: true } }),
    ...(options.sampling === undefined ? {} : { sampling: {} }),
    ...(options.elicitation === undefined ? {} : { elicitation: { form: { applyDefaults: true } } }),
  };
}

/** Throws `TypeError` for a root that is not a `file://` URI (the spec allows no other kind). */
export function checkRoots(roots: readonly McpRoot[]): readonly McpRoot[] {
  for (const root of roots) {
    if (!root.uri.startsWith('file://'))
      throw new TypeError(`root ${JSON.stringify(root.uri)} is not a file:// URI`);
  }
  return roots.map((r) => ({ ...r }));
}

/**
 * Registers the handlers on one connection's client. `callInProgress` names the tool call
 * a server request belongs to (undefined when it cannot be told); `roots` reads the current
 * list.
 */
export function registerClientRequests(
  client: Client,
  options: ClientRequestOptions,
  roots: () => readonly McpRoot[],
  callInProgress: () => ToolContext | undefined,
): void {
  if (options.roots !== undefined) {
    client.setRequestHandler('roots/list', () => ({ roots: roots().map((r) => ({ ...r })) }));
  }
  const sampling = options.sampling;
  if (sampling !== undefined) {
    let answered = 0;
    const maxCalls = sampling.maxCalls ?? 10;
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const ctx = callInProgress();
      if (ctx === undefined) refuse('sampling is answered only during one of this client’s tool calls');
      // Refused for what it asks before anything is charged: no quota or budget spent on it.
      const params = request.params as SamplingParams;
      if (params.tools !== undefined || params.toolChoice !== undefined)
        refuse('sampling with tools is not supported');
      if (answered >= maxCalls) refuse(`sampling budget of this connection used up (${maxCalls} calls)`);
      if (sampling.admit !== undefined && !(await sampling.admit(ctx.principal))) {
        refuse('sampling refused: the user’s model-call quota is used up');
      }
      answered++;
      return sample(sampling, params, ctx);
    });
  }
  const elicitation = options.elicitation;
  if (elicitation !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as {
        mode?: string;
        message?: string;
        requestedSchema?: Record<string, unknown>;
      };
      // No user in the loop: an imported tool is called by a model, and no user may be
      // silently impersonated — so the default answer is no.
      if (elicitation === 'decline' || params.mode === 'url' || params.requestedSchema === undefined) {
        return { action: 'decline' as const };
      }
      const schema = params.requestedSchema;
      const answer = await elicitation(
        { message: params.message ?? '', requestedSchema: schema },
        callInProgress(),
      );
      if (answer.action !== 'accept') return { action: answer.action };
      const content = checkedContent(schema, answer.content);
      return content === undefined ? { action: 'decline' as const } : { action: 'accept' as const, content };
    });
  }
}

interface SamplingParams {
  readonly messages: readonly { role: 'user' | 'assistant'; content: unknown }[];
  readonly systemPrompt?: string;
  readonly maxTokens: number;
  readonly tools?: unknown;
  readonly toolChoice?: unknown;
}

async function sample(options: McpSamplingOptions, params: SamplingParams, ctx: ToolContext) {
  const limit = Math.max(1, Math.min(params.maxTokens, options.maxTokens ?? 1_024));
  const messages: ChatMessage[] = [];
  if (params.systemPrompt !== undefined) messages.push({ role: 'system', content: params.systemPrompt });
  for (const message of params.messages)
    messages.push({ role: message.role, content: textOf(message.content) });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  const result = await options.model.call({
    messages,
    tools: [],
    signal,
    runId: ctx.runId,
    timeoutMs,
    step: 1,
    finalStep: true,
  });
  if (!result.ok) {
    throw new ProtocolError(ProtocolErrorCode.InternalError, `sampling failed: ${result.error.code}`);
  }
  // The adapter's own max-tokens setting is the hard cap; this one bounds what goes back.
  const maxChars = limit * 4;
  const cut = result.usage.outputTokens > limit || estimateTokens(result.text) > limit;
  return {
    model: result.model ?? options.model.name,
    role: 'assistant' as const,
    content: { type: 'text' as const, text: cut ? result.text.slice(0, maxChars) : result.text },
    stopReason: cut ? 'maxTokens' : 'endTurn',
  };
}

/** Text content as it is; other content types (image, audio) are named, not passed on. */
function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => {
      const b = block as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)} content omitted]`;
    })
    .join('\n');
}

/** Defaults filled in, then a strict check against the requested schema; `undefined` when it does not fit. */
type ElicitedValue = string | number | boolean | string[];

function checkedContent(
  schema: Record<string, unknown>,
  content: Readonly<Record<string, unknown>>,
): Record<string, ElicitedValue> | undefined {
  const filled: Record<string, unknown> = { ...content };
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [key, property] of Object.entries(properties)) {
    if (filled[key] === undefined && property.default !== undefined) filled[key] = property.default;
  }
  try {
    const parsed = inputSchemaToZod(schema, { maxBase64Bytes: 0 }).safeParse(filled);
    // The requested schema allows only these primitive values (the SDK re-checks the result).
    return parsed.success ? (parsed.data as Record<string, ElicitedValue>) : undefined;
  } catch {
    return undefined; // a schema we cannot check is not answered
  }
}

function refuse(message: string): never {
  throw new ProtocolError(ProtocolErrorCode.InvalidRequest, untrustedText(message, 200));
}
