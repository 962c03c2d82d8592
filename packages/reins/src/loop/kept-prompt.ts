import type { DecisionParse } from '../decision/index.js';
import type { ReasonStep } from '../events.js';
import { estimateTokens, type ChatMessage, type ModelResult, type ToolCall, type Usage } from '../model.js';
import type { PromptMessage, PromptRun, PromptSnapshot } from '../prompt-snapshot.js';
import { maskPii, maskPiiText } from '../sanitize/mask-pii.js';
import type { LoopContext } from './loop-context.js';
import { reasonDraft } from './step-events.js';

/**
 * Appends a model step's `reason` event: what the model said, how it parsed, what it cost,
 * and (when the run keeps prompts) what it was sent, as a `KeptPrompt`.
 */
export function appendReason(
  ctx: LoopContext,
  step: number,
  startedAt: number,
  endedAt: number,
  finalStep: boolean,
  result: Extract<ModelResult, { ok: true }>,
  parse: DecisionParse,
  runId: string,
): void {
  const prompts = ctx.prompts;
  const reported = (result.usage as Usage | undefined)?.inputTokens ?? 0; // a broken adapter may leave it out
  const kept = prompts?.kept(ctx.prompt.lastSent, reported);
  const log = ctx.log;
  const draft = reasonDraft(
    step,
    startedAt,
    endedAt,
    ctx.model.name,
    !finalStep,
    result,
    parse,
    runId,
    log.nextSeq,
    kept,
  );
  const logged = log.appendStamped(draft);
  if (logged !== draft) prompts?.replayed(logged as ReasonStep);
}

/**
 * The messages some model steps of a run were sent: each of those steps sent a prefix of
 * `messages`. A step's messages are the step before's plus its said / observed pair, so one
 * array, replaced by each longer one, serves every kept prompt of the run: a run in flight
 * holds no array per step (see bench/loop-overhead).
 */
interface SentMessages {
  messages: readonly ChatMessage[];
}

/** The previous kept prompt's messages, when they are not a prefix of this step's: the first `count` of `sent`. */
interface OtherBase {
  readonly sent: SentMessages;
  readonly count: number;
}

/** `sent` begins with every message of `prefix`, the same objects in the same places. */
function startsWith(sent: readonly ChatMessage[], prefix: readonly ChatMessage[]): boolean {
  if (prefix.length > sent.length) return false;
  for (let i = 0; i < prefix.length; i++) if (sent[i] !== prefix[i]) return false;
  return true;
}

/** A run's prompt keeping: what its steps were sent, and the base of the next step's delta. */
export class PromptKeeper {
  /** The messages the latest step was sent (and earlier ones a prefix of, on the same chain). */
  #sent: SentMessages | undefined;
  /** How many messages the last step whose prompt the log keeps was sent, on `#sent` (-1: none). */
  #keptCount = -1;
  /** That step's messages when they are on another chain than `#sent`. */
  #keptOn: SentMessages | undefined;

  /** A model step is being sent `messages` (kept when the step is, see `kept`). */
  sending(messages: readonly ChatMessage[]): void {
    const sent = this.#sent;
    if (sent !== undefined && startsWith(messages, sent.messages)) {
      sent.messages = messages; // earlier steps read their prefix from the longer array
      return;
    }
    if (this.#keptCount >= 0 && this.#keptOn === undefined) this.#keptOn = sent;
    this.#sent = { messages };
  }

  /** The kept prompt of a step that sent `sent` (undefined when nothing was sent). */
  kept(sent: readonly ChatMessage[] | undefined, reportedTokens: number): KeptPrompt | undefined {
    if (sent === undefined) return undefined;
    if (this.#sent?.messages !== sent) this.sending(sent);
    const on = this.#sent as SentMessages;
    const count = this.#keptCount;
    const keptOn = this.#keptOn;
    const base = count < 0 ? undefined : keptOn === undefined ? count : { sent: keptOn, count };
    this.#keptCount = sent.length;
    this.#keptOn = undefined;
    return new KeptPrompt(on, sent.length, base, reportedTokens);
  }

  /**
   * A rebuilt run's log handed back its history's event for the step: when that one keeps no
   * prompt (recorded with prompts off), the next step's prompt is kept whole.
   */
  replayed(event: ReasonStep): void {
    if (event.prompt !== undefined) return;
    this.#keptCount = -1;
    this.#keptOn = undefined;
  }
}

/**
 * A reason step's kept prompt (seed 001 §6), built when it is first read. The loop only keeps
 * how many messages the step was sent, on an array the run's later steps extend (immutable
 * messages, see `PromptBuilder.messages`); the delta against the step before, the masking and
 * the token estimates are made on the first read: `JSON.stringify` (the SSE stream, a store,
 * the server's responses) through `toJSON`, or a getter. A run whose events nobody serializes
 * pays one object per step (see bench/loop-overhead).
 */
export class KeptPrompt implements PromptSnapshot {
  /**
   * Where this step's messages are (the first `#count` of them) until the snapshot is built,
   * then the snapshot: one slot for both (8 bytes of every kept step a run in flight holds).
   */
  #state: SentMessages | PromptSnapshot;
  readonly #count: number;
  /**
   * The previous kept step's messages: the first N of `#state`'s (a number), of another array,
   * or none (`undefined`: all are new). Dropped once built.
   */
  #base: number | OtherBase | undefined;
  readonly #reportedTokens: number;

  /** A prompt kept whole, without a step before it: the messages `sent`. */
  static whole(sent: readonly ChatMessage[], reportedTokens: number): KeptPrompt {
    return new KeptPrompt({ messages: sent }, sent.length, undefined, reportedTokens);
  }

  /**
   * @param sent this step was sent the first `count` of its messages
   * @param base the previous kept step's messages (see `#base`)
   * @param reportedTokens the step's input tokens as the model reported them (0: not reported)
   */
  constructor(
    sent: SentMessages,
    count: number,
    base: number | OtherBase | undefined,
    reportedTokens: number,
  ) {
    this.#state = sent;
    this.#count = count;
    this.#base = base;
    this.#reportedTokens = reportedTokens;
  }

  get parts(): PromptSnapshot['parts'] {
    return this.#build().parts;
  }

  get count(): number {
    return this.#count;
  }

  get tokens(): number {
    return this.#build().tokens;
  }

  get tokensFrom(): PromptSnapshot['tokensFrom'] {
    return this.#reportedTokens > 0 ? 'usage' : 'estimate';
  }

  /** What JSON carries (and every store keeps): the plain snapshot. */
  toJSON(): PromptSnapshot {
    return this.#build();
  }

  #build(): PromptSnapshot {
    const state = this.#state;
    if (isBuilt(state)) return state;
    const sent = state.messages;
    const base = this.#base;
    // The previous step's messages: the first `same` of `previous`.
    const previous = base === undefined ? undefined : typeof base === 'number' ? sent : base.sent.messages;
    const same = base === undefined ? 0 : typeof base === 'number' ? base : base.count;
    const parts: (PromptMessage | PromptRun)[] = [];
    let run: { same: number; count: number } | undefined;
    let estimate = 0;
    for (let i = 0; i < this.#count; i++) {
      const message = sent[i] as ChatMessage;
      if (previous !== undefined && i < same && previous[i] === message) {
        // Same object at the same place: sent unchanged by the step before.
        if (run !== undefined && run.same + run.count === i) run.count++;
        else parts.push((run = { same: i, count: 1 }));
        estimate += tokensOf(message);
        continue;
      }
      const kept = keptMessage(message);
      estimate += kept.tokens;
      parts.push(kept);
    }
    this.#base = undefined; // not needed any more
    const reported = this.#reportedTokens;
    const built: PromptSnapshot = {
      parts,
      count: this.#count,
      tokens: reported > 0 ? reported : estimate,
      tokensFrom: reported > 0 ? 'usage' : 'estimate',
    };
    this.#state = built;
    return built;
  }
}

const isBuilt = (state: SentMessages | PromptSnapshot): state is PromptSnapshot => 'parts' in state;

// System prompts are built once per configuration and shared by every run: masked once.
const keptSystem = new WeakMap<ChatMessage, PromptMessage>();

/** A message as kept: every string masked like an observation, with its token estimate. */
export function keptMessage(message: ChatMessage): PromptMessage {
  if (message.role === 'system') {
    const cached = keptSystem.get(message);
    if (cached !== undefined) return cached;
    const kept = { role: message.role, content: maskPiiText(message.content), tokens: tokensOf(message) };
    keptSystem.set(message, kept);
    return kept;
  }
  const content = maskPiiText(message.content);
  const tokens = tokensOf(message);
  if (message.role === 'tool') {
    const { toolCallId, name } = message;
    return { role: 'tool', content, tokens, toolCallId, name };
  }
  if (message.role === 'assistant' && message.toolCalls !== undefined) {
    return { role: 'assistant', content, tokens, toolCalls: message.toolCalls.map(maskCall) };
  }
  return { role: message.role, content, tokens };
}

/** The token estimate of a message as sent: its text, and its tool calls' names and arguments. */
function tokensOf(message: ChatMessage): number {
  let tokens = estimateTokens(message.content);
  if (message.role === 'assistant' && message.toolCalls !== undefined) {
    for (const call of message.toolCalls)
      tokens += estimateTokens(call.name) + estimateTokens(argumentsText(call));
  }
  return tokens;
}

function argumentsText(call: ToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : (JSON.stringify(call.arguments) ?? '');
}

function maskCall(call: ToolCall): ToolCall {
  let args: ToolCall['arguments'];
  try {
    args = typeof call.arguments === 'string' ? maskPiiText(call.arguments) : maskPii(call.arguments);
  } catch {
    args = '[not JSON]'; // a provider's arguments JSON cannot carry (it would not have reached here)
  }
  return { id: call.id, name: call.name, arguments: args };
}
