import type { KitchenAnswer } from '../cards.js';
import type { Slot } from '../../domain/types.js';
import { safeMatches } from './plan-calls.js';
import type { Seen } from './seen.js';

/** What every part's writer gets: the observations, the language, the part's details. */
export type Say = (zh: string, en: string) => string;

export interface Context {
  readonly seen: Seen;
  readonly say: Say;
  readonly zh: boolean;
  readonly today: string;
  readonly food: string | undefined;
  /** The meal the question is about (这周晚饭 → dinner); undefined: every meal. */
  readonly slot: Slot | undefined;
  /** The part of the question this answers (for a change request: what to change). */
  readonly text: string;
}

export const list = (zh: boolean, items: readonly string[]) => items.join(zh ? '、' : ', ');

export function allergyLine(c: Context): string | undefined {
  const allergies = c.seen.profile()?.allergies ?? [];
  if (allergies.length === 0) return undefined;
  const labels = allergies.map((a) => (a.person === null ? a.label : `${a.person}：${a.label}`));
  const skipped = (c.seen.recipes() ?? []).length - safeMatches(c.seen, false, false).length; // allergens only
  return c.say(
    `已避开过敏食材（${labels.join('；')}）${skipped > 0 ? `，排除了 ${skipped} 道含过敏原的菜` : ''}。`,
    `Allergies respected (${allergies.map((a) => a.label).join(', ')})${skipped > 0 ? `; ${skipped} dish(es) with an allergen left out` : ''}.`,
  );
}

/**
 * A read that gave nothing. A tool that was never called (or a plan step skipped at a limit)
 * is not "missing data": the answer says the lookup did not happen, not that the data is absent.
 */
export function unavailable(c: Context, tool: string): KitchenAnswer {
  const code = c.seen.failed(tool);
  if (code === undefined || code === 'skipped') {
    return {
      reply: c.say(
        `这次没有查到这部分（${tool} 没有运行，可能到了步数或时间上限），不是家里没有数据；请再问一次。`,
        `This part was not looked up this time (${tool} did not run, likely a step or time limit); it does not mean your household has no data. Please ask again.`,
      ),
      cards: [],
    };
  }
  return {
    reply: c.say(
      `暂时读不到家里的数据（${tool}：${code}），请稍后再试。`,
      `I could not read your household's data just now (${tool}: ${code}); please try again later.`,
    ),
    cards: [],
  };
}
