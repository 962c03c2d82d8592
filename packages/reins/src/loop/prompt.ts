import type { Decision } from '../decision/index.js';
import type { RunLimits } from '../limits.js';
import type { ChatMessage, ToolSpec } from '../model.js';
import type { Observation } from '../observation.js';

/** One completed model step as the prompt remembers it. */
export interface Turn {
  /** What the model said, normalized to the decision JSON when it parsed. */
  readonly said: string;
  readonly observation?: Observation;
  /** The observation as shown in full (computed once). */
  readonly observationText?: string;
}

const FORMAT = [
  'Reply with exactly one JSON object and nothing else, in one of these forms:',
  '{"thought": "<why>", "action": "<tool name>", "input": {<arguments>}}  (call one tool)',
  '{"thought": "<why>", "final": "<the answer for the user>"}  (answer)',
  '{"thought": "<why>", "ask": "<one question for the user>"}  (only if information is missing)',
].join('\n');

/**
 * Builds the system prompt (catalog from the tool schemas, limits stated) once per run, and
 * the message list per step with a bounded history window.
 */
export class PromptBuilder {
  readonly #withTools: string;
  readonly #lastStep: string;

  constructor(
    readonly query: string,
    specs: readonly ToolSpec[],
    private readonly limits: RunLimits,
    instructions: string | undefined,
  ) {
    const prompts = systemPrompts(specs, limits.maxSteps, instructions);
    this.#withTools = prompts.withTools;
    this.#lastStep = prompts.lastStep;
  }

  messages(turns: readonly Turn[], finalStep: boolean): ChatMessage[] {
    const messages: ChatMessage[] = [
      { role: 'system', content: finalStep ? this.#lastStep : this.#withTools },
      { role: 'user', content: this.query },
    ];
    const firstFull = turns.length - this.limits.historyFullSteps;
    turns.forEach((turn, i) => {
      messages.push({ role: 'assistant', content: turn.said });
      if (turn.observationText === undefined) return;
      const text =
        i >= firstFull ? turn.observationText : truncate(turn.observationText, this.limits.summaryChars);
      messages.push({ role: 'user', content: text });
    });
    return messages;
  }

  describe(observation: Observation): string {
    const { actId, tool, status, result, error } = observation;
    const body =
      status === 'ok'
        ? { status, result }
        : { status, error: { code: error?.code, message: error?.message } };
    const text = `Observation (tool ${tool}, act ${actId}): ${JSON.stringify(body)}`;
    return truncate(text, this.limits.observationChars);
  }
}

interface SystemPrompts {
  readonly withTools: string;
  readonly lastStep: string;
}

interface CachedPrompts extends SystemPrompts {
  readonly specs: readonly ToolSpec[];
  readonly maxSteps: number;
  readonly instructions: string | undefined;
}

// Most runs repeat one configuration, so the last few system prompts are shared, not rebuilt
// (~1.3 KB per run in flight). A hit needs the same instructions and maxSteps and, per spec,
// the same name, description and inputSchema object (toolSpec caches one per tool).
const RECENT_PROMPTS = 8;
const recentPrompts: CachedPrompts[] = [];

function systemPrompts(
  specs: readonly ToolSpec[],
  maxSteps: number,
  instructions: string | undefined,
): SystemPrompts {
  const hit = recentPrompts.find(
    (p) =>
      p.maxSteps === maxSteps &&
      p.instructions === instructions &&
      p.specs.length === specs.length &&
      p.specs.every((a, i) => {
        const b = specs[i];
        return a.name === b?.name && a.description === b.description && a.inputSchema === b.inputSchema;
      }),
  );
  if (hit !== undefined) return hit;
  const built: CachedPrompts = {
    specs: specs.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    maxSteps,
    instructions,
    ...buildSystemPrompts(specs, maxSteps, instructions),
  };
  if (recentPrompts.unshift(built) > RECENT_PROMPTS) recentPrompts.pop();
  return built;
}

function buildSystemPrompts(
  specs: readonly ToolSpec[],
  maxSteps: number,
  instructions: string | undefined,
): SystemPrompts {
  const intro = [
    instructions ?? 'You are a careful assistant. Use a tool when it helps; never invent tool results.',
    FORMAT,
  ].join('\n\n');
  const catalog = specs
    .map((s) => `- ${s.name}: ${s.description}\n  input schema: ${JSON.stringify(s.inputSchema)}`)
    .join('\n');
  return {
    withTools: [
      intro,
      `Tools (inputs are checked against these schemas; unknown keys are rejected):\n${catalog || '(none)'}`,
      `You have at most ${maxSteps} steps; the last one offers no tools. Calling a tool again with the same input is refused.`,
    ].join('\n\n'),
    lastStep: [
      intro,
      'This is your last step: no tools are available now. Answer with "final" using what you know (or "ask").',
    ].join('\n\n'),
  };
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
