import {
  estimateTokens,
  PLANNER_MARKER,
  readUserInput,
  type Model,
  type ModelRequest,
  type ModelResult,
} from 'reins';
import { localDate } from './dates.js';
import { isChinese } from '../language.js';
import { detectIntent, detectParts, type DemoPart } from './intent.js';
import { recallCalls, rememberDecision, rememberRequest } from './memory-calls.js';
import { nextCalls, type DemoCall } from './plan-calls.js';
import { readSeen, type Seen } from './seen.js';
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

const RESPONDER = 'You are the RESPONDER of a plan-and-execute agent.';

function decide(request: ModelRequest, today: string): Record<string, unknown> {
  const asked = readUserInput(request.messages[1]?.content ?? '');
  // A follow-up ("那明天呢？") is answered as the question it stands for, from the conversation.
  const resolved = resolveFollowUp(asked, request.messages[0]?.content ?? '');
  // A question it asked before ("想查什么？") was answered: the answer says what to look up.
  const query = answeredInstead(resolved ?? asked, request);
  const parts = detectParts(query);
  const seen = readSeen(request.messages);
  const zh = isChinese(query);
  const system = request.messages[0]?.content ?? '';
  const planner = system.startsWith(PLANNER_MARKER);
  const responder = system.startsWith(RESPONDER);
  const remember = rememberRequest(query);
  if (remember !== undefined && !planner) {
    const notice = zh ? KITCHEN_DEMO_NOTICE.zh : KITCHEN_DEMO_NOTICE.en;
    return rememberDecision(remember, seen, zh, request.finalStep, notice);
  }
  const calls = callsFor(parts, query, seen, today, zh);
  const label = parts.map((p) => p.intent).join('+');
  if (planner) return plan(label, calls);
  const offered = new Set(request.tools.map((t) => t.name));
  const now = request.finalStep ? [] : calls.filter((c) => offered.has(c.action));
  if (now.length > 0) {
    return { thought: `${label}: calling ${now.map((c) => c.action).join(', ')}`, actions: now };
  }
  // The last step with reads still missing: no answer from half the data that would blame the
  // household ("nothing fits"); asking for them makes the run stop at its step limit, saying so.
  const needed = calls.filter((c) => c.optional !== true);
  if (request.finalStep && !responder && needed.length > 0) {
    return {
      thought: `${label}: the step limit came before ${needed.map((c) => c.action).join(', ')}`,
      actions: needed.map(({ action, input }) => ({ action, input })),
    };
  }
  return {
    thought: `${label}: answering from ${seen.all.length} observation(s)`,
    final: writeAnswer(parts, seen, { zh, today, followUp: resolved }),
  };
}

/** The calls still to make for every part of the question (each once), recall first. */
function callsFor(
  parts: readonly DemoPart[],
  query: string,
  seen: Seen,
  today: string,
  zh: boolean,
): DemoCall[] {
  const choosing = parts.find((p) => p.intent === 'cook' || p.intent === 'plan' || p.intent === 'expiring');
  const memory = choosing === undefined ? [] : recallCalls(choosing.intent, query, seen, zh);
  const calls: DemoCall[] = [];
  const keys = new Set<string>();
  for (const call of [...memory, ...parts.flatMap((p) => nextCalls(p, seen, today))]) {
    const key = `${call.action} ${JSON.stringify(call.input)}`;
    if (keys.has(key)) continue;
    keys.add(key);
    calls.push(call);
  }
  return calls;
}

/**
 * As the planner of a plan-and-execute agent: the same calls as independent steps (they run
 * side by side; the recipe search reads the fridge itself, so none waits for another); the
 * responder request is then answered like a final step.
 */
function plan(label: string, calls: readonly DemoCall[]): Record<string, unknown> {
  if (calls.length === 0) {
    return {
      thought: `${label}: nothing to look up`,
      ask: '想查什么？冰箱、快过期的食材、本周菜单、过敏或某样食物的营养。/ What should I look up: the fridge, what expires soon, this week’s plan, allergies, or a food’s nutrition?',
    };
  }
  return {
    thought: `${label}: ${calls.length} independent step(s)`,
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
