import { parseContextTurns } from 'reins';
import { isChinese } from '../language.js';

/** An earlier turn as the run's context shows it (see `conversationContext` in `@reins/server`). */
interface EarlierTurn {
  readonly user: string;
  readonly answer?: string;
  readonly about?: unknown;
}

const TIME_WORDS =
  /今天|明天|后天|昨天|今晚|明晚|周[一二三四五六日天]|星期[一二三四五六日天]|下周|这周|本周|today|tonight|tomorrow|this week|next week/i;
const ZH_FOLLOW_UP = /^(?:那|那么|还有)?\s*(.{0,12}?)\s*(?:呢|怎么样|如何|咋样)\s*[？?。！!]*$/;
const EN_FOLLOW_UP = /^(?:and|what about|how about)\s+(.{1,40}?)\s*[?.!]*$/i;
const PRONOUN =
  /^(?:它|这个菜|这道菜|这个|那个|它的|这道菜的|那道菜的)|\b(?:it|its|this dish|that dish|that one)\b/i;

/**
 * The question a follow-up stands for, read from the conversation's earlier turns the way a
 * real model would read its context: "那明天呢？" after "今天晚饭吃什么？" is "明天晚饭吃什么？";
 * "它的热量呢？" after a turn about 番茄炒蛋 is "番茄炒蛋的热量"; "and tomorrow?" likewise.
 * `undefined` when the query is not a follow-up, or nothing earlier resolves it.
 */
export function resolveFollowUp(query: string, system: string): string | undefined {
  const turns = parseContextTurns(system) as EarlierTurn[];
  const last = turns.at(-1);
  if (last === undefined) return undefined;
  const text = query.trim();
  const rest = ZH_FOLLOW_UP.exec(text)?.[1] ?? EN_FOLLOW_UP.exec(text)?.[1];
  if (rest === undefined) return undefined;
  if (PRONOUN.test(rest)) {
    const subject = subjectOf(turns);
    if (subject === undefined) return undefined;
    const asked = rest.replace(PRONOUN, '').replace(/^的/, '').trim();
    return isChinese(text) ? `${subject}的${asked || '营养'}` : `${asked || 'nutrition'} of ${subject}`;
  }
  const time = TIME_WORDS.exec(rest)?.[0];
  if (time !== undefined) {
    const before = last.user;
    return TIME_WORDS.test(before) ? before.replace(TIME_WORDS, time) : `${time}${before}`;
  }
  return undefined;
}

/** What the latest turn that was about something was about: a recipe, a food, a dish. */
function subjectOf(turns: readonly EarlierTurn[]): string | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const about = turns[i]?.about as { recipe?: { name?: unknown }; food?: unknown } | undefined;
    if (typeof about?.recipe?.name === 'string') return about.recipe.name;
    if (typeof about?.food === 'string') return about.food;
  }
  return undefined;
}
