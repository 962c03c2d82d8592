import type { KitchenAnswer } from '../cards.js';
import { recallOutput } from '../memory-tools.js';
import type { DemoIntent } from './intent.js';
import type { DemoCall } from './plan-calls.js';
import { parsedResult, type Seen } from './seen.js';

/**
 * The demo model's memory behaviour: it recalls household memories before answering about
 * food choices, and proposes `remember_memory` only when the user's own message asks
 * ("记住：…", "remember that …"); the tool then waits for the user's approval.
 */

const ASKS_TO_REMEMBER = [
  /^\s*(?:请|麻烦)?(?:帮我|你)?记住(?:一下)?[：:，,\s]*(.+)$/s,
  /^\s*(?:please\s+)?remember(?:\s+that)?[:,\s]+(.+)$/is,
];

/** The text the user asks to remember, or undefined when the message is not such a request. */
export function rememberRequest(query: string): string | undefined {
  for (const pattern of ASKS_TO_REMEMBER) {
    const text = pattern
      .exec(query)?.[1]
      ?.trim()
      .replace(/[。.！!]+$/u, '');
    if (text !== undefined && text !== '') return text.slice(0, 500);
  }
  return undefined;
}

/**
 * Intents that choose dishes: they recall the household's memories first. (An allergy question
 * reads the recorded allergies; its one round stays one round.)
 */
const RECALLS: ReadonlySet<DemoIntent> = new Set(['cook', 'plan', 'expiring']);

/**
 * The recall for a food question: the question plus the words such memories use (忌口, 不吃,
 * 过敏 …), since "今晚做什么菜？" itself shares no word with "婆婆不吃辣". A real model writes
 * its own query; this is the demo's fixed expansion.
 */
export function recallCalls(intent: DemoIntent, query: string, seen: Seen, zh: boolean): DemoCall[] {
  if (!RECALLS.has(intent) || seen.tools.has('recall_memories')) return [];
  const topics = zh ? '忌口 不吃 过敏 口味' : 'avoid allergic allergy diet eat';
  return [{ action: 'recall_memories', input: { query: `${query.slice(0, 150)} ${topics}` } }];
}

/** The memories the run recalled, as the model read them back. */
export function recalledTexts(seen: Seen): string[] {
  const texts: string[] = [];
  for (const o of seen.all) {
    if (o.tool !== 'recall_memories' || !o.ok) continue;
    const parsed = parsedResult(o, recallOutput);
    if (parsed !== undefined) texts.push(...parsed.memories.map((m) => m.text));
  }
  return [...new Set(texts)];
}

const NO_SPICY =
  /不吃辣|不能吃辣|忌辣|怕辣|(?:doesn'?t|does not|don'?t|do not|can'?t|cannot) eat spicy|no spicy/i;

/** Recipe tags the recalled memories rule out (婆婆不吃辣 → 辣): the demo's one rule. */
export function avoidedTags(seen: Seen): string[] {
  return recalledTexts(seen).some((text) => NO_SPICY.test(text)) ? ['辣', 'spicy'] : [];
}

/** "记得家里说过：婆婆不吃辣…" for the reply, or undefined when nothing was recalled. */
export function memoryLine(seen: Seen, zh: boolean): string | undefined {
  const texts = recalledTexts(seen);
  if (texts.length === 0) return undefined;
  const avoided = avoidedTags(seen).length > 0;
  return zh
    ? `记得家里说过：${texts.join('；')}。${avoided ? '推荐里已避开辣的菜。' : '推荐时请留意。'}`
    : `Remembered for your household: ${texts.join('; ')}.${avoided ? ' Spicy dishes are left out.' : ' Keep it in mind when choosing.'}`;
}

/**
 * A "remember …" message: first the `remember_memory` call (the run pauses for approval), then
 * the answer from its observation — stored, declined by the user, or failed.
 */
export function rememberDecision(
  text: string,
  seen: Seen,
  zh: boolean,
  finalStep: boolean,
  notice: string,
): Record<string, unknown> {
  const say = (a: string, b: string): string => (zh ? a : b);
  if (!seen.tools.has('remember_memory') && !finalStep) {
    return {
      thought: 'the user asks to remember something: propose it; it is stored only if they approve',
      actions: [{ action: 'remember_memory', input: { text } }],
    };
  }
  const failed = seen.failed('remember_memory');
  const reply =
    failed === undefined && seen.tools.has('remember_memory')
      ? say(
          `好的，记住了：${text}。以后推荐菜时会参考。`,
          `Got it, remembered: ${text}. I will keep it in mind.`,
        )
      : failed === 'PERMISSION_DENIED'
        ? say(`好的，没有记下“${text}”。`, `OK, I did not remember "${text}".`)
        : say(
            `没能记下“${text}”（${failed ?? 'NO_DATA'}）。`,
            `Could not remember "${text}" (${failed ?? 'NO_DATA'}).`,
          );
  const answer: KitchenAnswer = { reply: `${notice}\n${reply}`.slice(0, 4_000), cards: [] };
  return { thought: 'answering the remember request', final: answer };
}
