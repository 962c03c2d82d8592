import type { Decision } from '../decision/index.js';
import type { RunLimits } from '../limits.js';
import type { ChatMessage, ToolSpec } from '../model.js';
import type { Observation } from '../observation.js';
import { toJson } from '../sanitize/mask-pii.js';
import { systemPrompts } from './system-prompt.js';

/** One completed model step as the prompt remembers it; short forms are made once, when needed. */
interface Turn {
  readonly said: ChatMessage;
  readonly observed: ChatMessage;
  saidShort?: ChatMessage;
  observedShort?: ChatMessage;
}

/**
 * The messages of each model step: the system prompt (built once per configuration), the
 * query, then the history window — the last `historyFullSteps` steps in full, older ones
 * cut to `summaryChars`. Any one observation is capped at `observationChars`.
 */
export class PromptBuilder {
  readonly #withTools: ChatMessage;
  readonly #lastStep: ChatMessage;
  readonly #query: ChatMessage;
  readonly #turns: Turn[] = [];

  constructor(
    readonly query: string,
    specs: readonly ToolSpec[],
    private readonly limits: RunLimits,
    instructions: string | undefined,
  ) {
    const prompts = systemPrompts(specs, limits.maxSteps, instructions);
    this.#withTools = prompts.withTools;
    this.#lastStep = prompts.lastStep;
    this.#query = { role: 'user', content: query };
  }

  /** Adds a completed step: what the model said (normalized when it parsed) and what it observed. */
  remember(said: string, observation: Observation): void {
    this.#turns.push({
      said: { role: 'assistant', content: said },
      observed: { role: 'user', content: this.#describe(observation) },
    });
  }

  messages(finalStep: boolean): ChatMessage[] {
    const turns = this.#turns;
    // Sized once (no growth): a run in flight holds this array while the model thinks.
    const messages = new Array<ChatMessage>(2 + 2 * turns.length);
    messages[0] = finalStep ? this.#lastStep : this.#withTools;
    messages[1] = this.#query;
    const firstFull = turns.length - this.limits.historyFullSteps;
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i] as Turn;
      if (i < firstFull) {
        turn.saidShort ??= this.#shorten(turn.said);
        turn.observedShort ??= this.#shorten(turn.observed);
      }
      messages[2 + 2 * i] = i < firstFull ? (turn.saidShort as ChatMessage) : turn.said;
      messages[3 + 2 * i] = i < firstFull ? (turn.observedShort as ChatMessage) : turn.observed;
    }
    return messages;
  }

  #shorten(message: ChatMessage): ChatMessage {
    const content = truncate(message.content, this.limits.summaryChars);
    return content === message.content ? message : { role: message.role, content };
  }

  #describe(observation: Observation): string {
    const { actId, tool, status, result, error } = observation;
    const body =
      status === 'ok'
        ? `{"status":"ok","result":${toJson(result) ?? 'null'}}`
        : JSON.stringify({ status, error: { code: error?.code, message: error?.message } });
    const text = `Observation (tool ${tool}, act ${actId}): ${body}`;
    return truncate(text, this.limits.observationChars);
  }
}

export function sayDecision(decision: Decision): string {
  switch (decision.kind) {
    case 'action':
      return JSON.stringify({ thought: decision.thought, action: decision.action, input: decision.input });
    case 'final':
      return JSON.stringify({ thought: decision.thought, final: decision.final });
    case 'ask':
      return JSON.stringify({ thought: decision.thought, ask: decision.ask });
  }
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters not shown]`;
}
