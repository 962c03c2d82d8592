import type { Decision } from '../decision/index.js';
import type { RunLimits } from '../limits.js';
import type { ChatMessage, ToolCall, ToolSpec } from '../model.js';
import type { Observation } from '../observation.js';
import type { InputCleaned } from '../events.js';
import { toJson } from '../sanitize/mask-pii.js';
import { inputCleaned, neutralizeMarkers, userInputBlock } from '../sanitize/user-input.js';
import { systemPrompts } from './system-prompt.js';

/** The provider's side of a native tool-call step, to send back as it was. */
export interface NativeTurn {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/**
 * The messages of each model step: the system prompt (built once per configuration), the
 * query (cleaned, in its `<user_input>` block), then the history window — the last `historyFullSteps` steps in full, older ones
 * cut to `summaryChars`. Any one observation is capped at `observationChars`.
 *
 * Each completed step is remembered as two messages, what the model said and what it
 * observed, kept flat in one array (no object per step). A step older than the window is
 * only ever sent cut: its messages are then replaced by their short forms, and the full texts
 * are not kept for the rest of the run.
 */
export class PromptBuilder {
  readonly #withTools: ChatMessage;
  readonly #lastStep: ChatMessage;
  readonly #query: ChatMessage;
  /** The markers cleaning neutralized in the prompt's copy of the query (`undefined`: none). */
  readonly inputCleaned: InputCleaned | undefined;
  /**
   * The steps' said / observed messages, step by step: the first `2 × #count` slots (grown by
   * doubling: a first `push` makes 17 slots, ~100 bytes a run does not use).
   */
  #history: (ChatMessage | undefined)[] = [];
  #count = 0;
  /**
   * A step of native tool calls as sent back on steps that offer tools (assistant with
   * `toolCalls`, then one `tool` message per call), by step; made for the first such step.
   * The text form is sent on the last step, when no tool definitions go with the request.
   */
  #native: (readonly ChatMessage[] | undefined)[] | undefined;
  /** How many of the first steps hold only their short forms. */
  #summarized = 0;
  /** The messages `messages` made last: what the model was sent at the step in progress (or last). */
  lastSent: readonly ChatMessage[] | undefined;

  constructor(
    readonly query: string,
    specs: readonly ToolSpec[],
    private readonly limits: RunLimits,
    instructions: string | undefined,
  ) {
    const prompts = systemPrompts(specs, limits.maxSteps, instructions);
    this.#withTools = prompts.withTools;
    this.#lastStep = prompts.lastStep;
    // Cleaned once per run: the query goes into its labeled block (see `userInputBlock`).
    const block = userInputBlock(query);
    this.#query = { role: 'user', content: block.text };
    this.inputCleaned = inputCleaned(block.markers);
  }

  /** Adds a completed step: what the model said (normalized when it parsed) and what it observed. */
  remember(said: string, observation: Observation): void {
    this.#add({ role: 'assistant', content: said }, { role: 'user', content: this.#describe(observation) });
  }

  /** Adds a step that asked the user: the question as the model wrote it, and the answer. */
  rememberAnswer(said: string, answer: string, defaulted: boolean): void {
    const content = defaulted
      ? `No answer came from the user; the configured default is used: ${answer}`
      : `Answer from the user: ${neutralizeMarkers(answer).text}`; // user text: cleaned like the query
    this.#add({ role: 'assistant', content: said }, { role: 'user', content });
  }

  /**
   * Adds a step of several calls: in text form the decision and every observation (one line
   * each, in call order); for native calls also the assistant / tool messages.
   */
  rememberMany(decision: Decision, observations: readonly Observation[], native?: NativeTurn): void {
    const lines = observations.map((observation) => this.#describe(observation));
    if (native !== undefined) {
      (this.#native ??= [])[this.#count] = [
        { role: 'assistant', content: native.text, toolCalls: native.toolCalls },
        ...native.toolCalls.map((call, i): ChatMessage => ({
          role: 'tool',
          toolCallId: call.id,
          name: call.name,
          content: lines[i] ?? NOT_RUN,
        })),
      ];
    }
    this.#add(
      { role: 'assistant', content: sayDecision(decision) },
      { role: 'user', content: lines.join('\n') },
    );
  }

  #add(said: ChatMessage, observed: ChatMessage): void {
    let all = this.#history;
    const at = this.#count * 2;
    if (at === all.length) {
      const grown = new Array<ChatMessage | undefined>(Math.max(4, all.length * 2));
      for (let i = 0; i < all.length; i++) grown[i] = all[i];
      this.#history = all = grown;
    }
    all[at] = said;
    all[at + 1] = observed;
    this.#count++;
  }

  messages(finalStep: boolean): ChatMessage[] {
    const count = this.#count;
    const firstFull = count - this.limits.historyFullSteps;
    const native = finalStep ? undefined : this.#native;
    let size = 2 + count * 2;
    if (native !== undefined) for (const turn of native) if (turn !== undefined) size += turn.length - 2;
    // Sized once (no growth): a run in flight holds this array while the model thinks.
    const messages = new Array<ChatMessage>(size);
    messages[0] = finalStep ? this.#lastStep : this.#withTools;
    messages[1] = this.#query;
    let at = 2;
    for (let i = 0; i < count; i++) {
      if (i < firstFull && i >= this.#summarized) this.#summarize(i);
      const turn = native?.[i];
      if (turn !== undefined) {
        for (const message of turn) messages[at++] = message;
        continue;
      }
      messages[at++] = this.#history[i * 2] as ChatMessage;
      messages[at++] = this.#history[i * 2 + 1] as ChatMessage;
    }
    if (firstFull > this.#summarized) this.#summarized = firstFull;
    this.lastSent = messages;
    return messages;
  }

  /** Step `i` left the window: from now on only its short forms are sent (and kept). */
  #summarize(i: number): void {
    const all = this.#history;
    all[i * 2] = this.#shorten(all[i * 2] as ChatMessage);
    all[i * 2 + 1] = this.#shorten(all[i * 2 + 1] as ChatMessage);
    const native = this.#native;
    const turn = native?.[i];
    if (native !== undefined && turn !== undefined) native[i] = turn.map((m) => this.#shorten(m));
  }

  #shorten(message: ChatMessage): ChatMessage {
    const content = truncate(message.content, this.limits.summaryChars);
    return content === message.content ? message : { ...message, content };
  }

  #describe(observation: Observation): string {
    const { actId, tool, status, result, error } = observation;
    const text =
      status === 'ok'
        ? `Observation (tool ${tool}, act ${actId}): {"status":"ok","result":${toJson(result) ?? 'null'}}`
        : `Observation (tool ${tool}, act ${actId}): ${JSON.stringify({ status, error: { code: error?.code, message: error?.message } })}`;
    // Made flat here: a template literal is a chain of ~7 cons-string nodes, which the run
    // would keep alive (~150 bytes a step). Reading a character flattens it into one string
    // (the GC then drops the chain), ~15× cheaper than joining an array (see bench/).
    text.charCodeAt(0);
    return truncate(text, this.limits.observationChars);
  }
}

export function sayDecision(decision: Decision): string {
  switch (decision.kind) {
    case 'action':
      return JSON.stringify({ thought: decision.thought, action: decision.action, input: decision.input });
    case 'actions': {
      const actions = decision.actions.map(({ action, input }) => ({ action, input }));
      return JSON.stringify({ thought: decision.thought, actions });
    }
    case 'final':
      return JSON.stringify({ thought: decision.thought, final: decision.final });
    case 'ask':
      return JSON.stringify({ thought: decision.thought, ask: decision.ask });
  }
}

// A call the run stopped before it started has no observation; every native call still gets an answer.
const NOT_RUN = 'Observation: this call was not run.';

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters not shown]`;
}
