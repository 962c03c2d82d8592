import { estimateTokens, PLANNER_MARKER, type Model, type ModelRequest, type ModelResult } from 'reins';
import { localDate } from './dates.js';
import { detectIntent, foodOf, isChinese } from './intent.js';
import { recallCalls, rememberDecision, rememberRequest } from './memory-calls.js';
import { nextCalls, type DemoCall } from './plan-calls.js';
import { readSeen } from './seen.js';
import { KITCHEN_DEMO_NOTICE, writeAnswer } from './write-answer.js';
import { resolveFollowUp } from './follow-up.js';

export interface KitchenDemoModelOptions {
  /** For "this week". Default `() => new Date()`. */
  readonly now?: () => Date;
  /** The households' calendar. Default `Asia/Shanghai` (as the services). */
  readonly timeZone?: string;
}

/**
 * The kitchen's offline model, used when no model key is configured: recognises a few intents
 * (what can I cook, what is expiring, this week's plan, allergies, nutrition of a food or dish)
 * in Chinese and English, calls the real tools over a few rounds, and writes the final answer
 * with action cards from what they returned. Every answer starts with the demo notice. Never
 * throws; needs no network.
 */
export function kitchenDemoModel(options: KitchenDemoModelOptions = {}): Model {
  const now = options.now ?? (() => new Date());
  const timeZone = options.timeZone ?? 'Asia/Shanghai';
  return {
    name: 'kitchen-demo',
    demo: true,
    async call(request: ModelRequest): Promise<ModelResult> {
      if (request.signal.aborted) return { ok: false, error: { code: 'CANCELLED', message: 'aborted' } };
      const text = JSON.stringify(decide(request, localDate(now(), timeZone)));
      const chars = request.messages.reduce((n, m) => n + m.content.length, 0);
      return {
        ok: true,
        text,
        usage: { inputTokens: Math.ceil(chars / 4), outputTokens: estimateTokens(text) },
      };
    },
  };
}

function decide(request: ModelRequest, today: string): Record<string, unknown> {
  const asked = request.messages[1]?.content ?? '';
  // A follow-up ("那明天呢？") is answered as the question it stands for, from the conversation.
  const resolved = resolveFollowUp(asked, request.messages[0]?.content ?? '');
  // A question it asked before ("想查什么？") was answered: the answer says what to look up.
  const query = answeredInstead(resolved ?? asked, request);
  const intent = detectIntent(query);
  const food = intent === 'nutrition' ? foodOf(query) : undefined;
  const seen = readSeen(request.messages);
  const zh = isChinese(query);
  const planner = request.messages[0]?.content.startsWith(PLANNER_MARKER) === true;
  const remember = rememberRequest(query);
  if (remember !== undefined && !planner) {
    const notice = zh ? KITCHEN_DEMO_NOTICE.zh : KITCHEN_DEMO_NOTICE.en;
    return rememberDecision(remember, seen, zh, request.finalStep, notice);
  }
  const memory = recallCalls(intent, query, seen, zh);
  if (planner) return plan(intent, seen, today, food, memory);
  const offered = new Set(request.tools.map((t) => t.name));
  const calls = request.finalStep
    ? []
    : [...memory, ...nextCalls(intent, seen, today, food)].filter((c) => offered.has(c.action));
  if (calls.length > 0) {
    return {
      thought: `intent ${intent}: calling ${calls.map((c) => c.action).join(', ')}`,
      actions: calls,
    };
  }
  return {
    thought: `intent ${intent}: answering from ${seen.all.length} observation(s)`,
    final: writeAnswer(intent, seen, { zh, today, food, followUp: resolved }),
  };
}

/**
 * As the planner of a plan-and-execute agent: the first round of the same calls, as independent
 * steps (they run side by side); the responder request is then answered like a final step.
 * A plan cannot feed the fridge into a recipe search (the names are data, not a field), so a
 * plan answer has what one round finds.
 */
function plan(
  intent: ReturnType<typeof detectIntent>,
  seen: ReturnType<typeof readSeen>,
  today: string,
  food: string | undefined,
  memory: readonly DemoCall[],
): Record<string, unknown> {
  const calls = [...memory, ...nextCalls(intent, seen, today, food)];
  if (calls.length === 0) {
    return {
      thought: `intent ${intent}: nothing to look up`,
      ask: '想查什么？冰箱、快过期的食材、本周菜单、过敏或某样食物的营养。/ What should I look up: the fridge, what expires soon, this week’s plan, allergies, or a food’s nutrition?',
    };
  }
  return {
    thought: `intent ${intent}: ${calls.length} independent step(s)`,
    steps: calls.map((c, i) => ({ id: `s${i + 1}`, action: c.action, input: c.input, dependsOn: [] })),
  };
}

/** The user's latest answer to the planner's question when the question itself named nothing to do. */
function answeredInstead(query: string, request: ModelRequest): string {
  if (detectIntent(query) !== 'help') return query;
  const answers = request.messages.filter((m) => m.role === 'user' && m.content.startsWith('Answer to "'));
  const last = answers.at(-1)?.content;
  const value = last === undefined ? undefined : /^Answer to ".*": ([\s\S]+)$/.exec(last)?.[1]?.trim();
  return value === undefined || value === '' ? query : value;
}
