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
  const draft = reasonDraft(step, startedAt, endedAt, ctx.model.name, !finalStep, result, parse, runId, kept);
  const logged = ctx.log.append(draft, endedAt);
  if (logged !== draft) prompts?.replayed(logged as ReasonStep);
}

/** A run's prompt keeping: the base of the next step's delta. */
export class PromptKeeper {
  /** The messages of the last step whose prompt the log keeps. */
  #keptSent: readonly ChatMessage[] | undefined;

  /** The kept prompt of a step that sent `sent` (undefined when nothing was sent). */
  kept(sent: readonly ChatMessage[] | undefined, reportedTokens: number): KeptPrompt | undefined {
    if (sent === undefined) return undefined;
    const kept = new KeptPrompt(sent, this.#keptSent, reportedTokens);
    this.#keptSent = sent;
    return kept;
  }

  /**
   * A rebuilt run's log handed back its history's event for the step: when that one keeps no
   * prompt (recorded with prompts off), the next step's prompt is kept whole.
   */
  replayed(event: ReasonStep): void {
    if (event.prompt === undefined) this.#keptSent = undefined;
  }
}

/**
 * A reason step's kept prompt (seed 001 §6), built when it is first read. The loop only keeps
 * references to the messages it sent at the step and at the step before (immutable arrays of
 * immutable messages, see `PromptBuilder.messages`); the delta against the step before, the
 * masking and the token estimates are made on the first read: `JSON.stringify` (the SSE
 * stream, a store, the server's responses) through `toJSON`, or a getter. A run whose events
 * nobody serializes pays one object per step (see bench/loop-overhead).
 */
export class KeptPrompt implements PromptSnapshot {
  readonly #sent: readonly ChatMessage[];
  #previous: readonly ChatMessage[] | undefined;
  readonly #reportedTokens: number;
  #built: PromptSnapshot | undefined;

  /**
   * @param sent the messages of this step, as the model got them
   * @param previous the messages of the run's previous kept step (`undefined`: none, all are new)
   * @param reportedTokens the step's input tokens as the model reported them (0: not reported)
   */
  constructor(
    sent: readonly ChatMessage[],
    previous: readonly ChatMessage[] | undefined,
    reportedTokens: number,
  ) {
    this.#sent = sent;
    this.#previous = previous;
    this.#reportedTokens = reportedTokens;
  }

  get parts(): PromptSnapshot['parts'] {
    return this.#build().parts;
  }

  get count(): number {
    return this.#sent.length;
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
    if (this.#built !== undefined) return this.#built;
    const sent = this.#sent;
    const previous = this.#previous;
    const parts: (PromptMessage | PromptRun)[] = [];
    let run: { same: number; count: number } | undefined;
    let estimate = 0;
    for (let i = 0; i < sent.length; i++) {
      const message = sent[i] as ChatMessage;
      if (previous !== undefined && previous[i] === message) {
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
    this.#previous = undefined; // not needed any more
    const reported = this.#reportedTokens;
    this.#built = {
      parts,
      count: sent.length,
      tokens: reported > 0 ? reported : estimate,
      tokensFrom: reported > 0 ? 'usage' : 'estimate',
    };
    return this.#built;
  }
}

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
