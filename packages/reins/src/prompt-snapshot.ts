import type { RunEvent } from './events.js';
import type { RunRecord } from './record.js';
import type { ChatMessage, ToolCall } from './model.js';

/**
 * One message of a kept prompt (the prompt debugger, seed 001 §6): what the model was sent at
 * a step, with every string masked like an observation (`maskPiiText`), and its token estimate.
 */
export interface PromptMessage {
  readonly role: ChatMessage['role'];
  readonly content: string;
  /** `estimateTokens` of the content as sent (and of the tool calls' arguments, for an assistant turn). */
  readonly tokens: number;
  /** An assistant turn's native tool calls (arguments masked). */
  readonly toolCalls?: readonly ToolCall[] | undefined;
  /** A `tool` message: the call it answers, and the tool's name. */
  readonly toolCallId?: string | undefined;
  readonly name?: string | undefined;
}

/** `count` messages of the previous kept prompt of the run, from its message `same` (0-based), unchanged. */
export interface PromptRun {
  readonly same: number;
  readonly count: number;
}

/**
 * The exact messages of one model step, stored as a delta: the parts in order are either a
 * message sent for the first time (or changed), or a run of messages the step before sent
 * too. A step's prompt repeats the whole history, so this keeps each message once per run.
 * `expandPrompt` / `keptPrompts` rebuild the full list.
 */
export interface PromptSnapshot {
  readonly parts: readonly (PromptMessage | PromptRun)[];
  /** How many messages were sent. */
  readonly count: number;
  /** The step's input tokens: the model's usage when it reported one (`usage`), else the sum of the estimates. */
  readonly tokens: number;
  readonly tokensFrom: 'usage' | 'estimate';
}

/** A step's prompt with its full message list rebuilt. */
export interface ExpandedPrompt {
  /** The 1-based model step. */
  readonly index: number;
  readonly messages: readonly PromptMessage[];
  readonly tokens: number;
  readonly tokensFrom: 'usage' | 'estimate';
}

export function isPromptRun(part: PromptMessage | PromptRun): part is PromptRun {
  return typeof (part as { same?: unknown }).same === 'number';
}

/**
 * The full message list of `snapshot`, given the previous kept prompt's list of the same run.
 * Throws when a run points past `previous` (a log whose prompts are not consecutive).
 */
export function expandPrompt(
  snapshot: PromptSnapshot,
  previous: readonly PromptMessage[] | undefined,
): PromptMessage[] {
  const messages: PromptMessage[] = [];
  for (const part of snapshot.parts) {
    if (!isPromptRun(part)) {
      messages.push(part);
      continue;
    }
    const end = part.same + part.count;
    if (previous === undefined || end > previous.length || part.same < 0) {
      throw new Error(
        `kept prompt refers to messages ${part.same}..${end - 1} the previous step did not send`,
      );
    }
    for (let i = part.same; i < end; i++) messages.push(previous[i] as PromptMessage);
  }
  return messages;
}

/**
 * Every kept prompt of a run, from its event log or its record (or their JSON), in order,
 * with its full message list rebuilt. Model steps are `reason` steps and the plan versions a
 * model wrote (`plan` steps with a `model`: a plan run's planner); a plan version made by
 * code (a clarified patch) is no model step and is passed over. A model step without a kept
 * prompt is left out (and the next one starts a new delta chain, as the loop does).
 */
export function keptPrompts(source: readonly RunEvent[] | RunRecord): ExpandedPrompt[] {
  const steps: { readonly index: number; readonly prompt: unknown }[] = [];
  if (isRecord(source)) {
    for (const step of source.steps) {
      const byModel = step.phase === 'reason' || (step.phase === 'plan' && step.detail['model'] != null);
      if (byModel) steps.push({ index: step.index, prompt: step.detail['prompt'] });
    }
  } else {
    for (const event of source) {
      if (event.type !== 'step') continue;
      const byModel = event.phase === 'reason' || (event.phase === 'plan' && event.model != null);
      if (byModel) steps.push({ index: event.index, prompt: event.prompt });
    }
  }
  const out: ExpandedPrompt[] = [];
  let previous: readonly PromptMessage[] | undefined;
  for (const { index, prompt } of steps) {
    if (prompt === undefined || prompt === null) {
      previous = undefined;
      continue;
    }
    const snapshot = prompt as PromptSnapshot;
    const messages = expandPrompt(snapshot, previous);
    out.push({ index, messages, tokens: snapshot.tokens, tokensFrom: snapshot.tokensFrom });
    previous = messages;
  }
  return out;
}

function isRecord(source: readonly RunEvent[] | RunRecord): source is RunRecord {
  return !Array.isArray(source);
}
