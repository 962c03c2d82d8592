import type { StopFacts, StopReason } from 'reins';
import { isChinese } from './language.js';

/** What each tool reads, as the family's pages name it. */
const READS: Readonly<Record<string, readonly [zh: string, en: string]>> = {
  fridge_items: ['冰箱', 'the fridge'],
  search_recipes: ['菜谱', 'recipes'],
  household_preferences: ['口味与过敏', 'allergies and preferences'],
  meal_plan: ['本周菜单', 'the meal plan'],
  nutrition_lookup: ['营养数据', 'nutrition data'],
  recall_memories: ['家里记下的事项', 'household memories'],
  remember_memory: ['记住的事项', 'remembering'],
};

const seconds = (ms: number): number => Math.max(1, Math.round(ms / 1000));

const ZH: Readonly<Record<StopReason, (stop: StopFacts) => string>> = {
  max_steps: (s) =>
    `已停止：到了步数上限（${s.limits.maxSteps} 步），还没得出回答。这不是家里缺数据；可以把问题拆开，一次问一件事。`,
  repeated_action: () => '已停止：助手重复了已经做过的查询，没有得出回答。请换个说法再问一次。',
  deadline: (s) =>
    `已停止：超过了这次回答的时间上限（${seconds(s.limits.deadlineMs)} 秒），还没得出回答。请稍后再问一次。`,
  invalid_plan: () => '已停止：查询计划重新安排后仍然不可用，所以什么都没有查。请换个说法再问一次。',
  unanswered: () => '已停止：需要你回答一个问题，但没有等到回答（或已经问到上限）。请再问一次。',
  outcome_unknown: () =>
    '已停止：服务器在一个可能改动数据的操作进行时重启了。它可能已经生效，所以没有再做一次；请先确认结果，再重试。',
  interrupted: () => '已停止：服务器重启时这次回答还没完成，没有继续。请再问一次。',
};

/**
 * The kitchen's stop notice, in the language of the question (the same test as its answers):
 * a limit is said to be a limit — never that the household has no data. A plan run that
 * answered in part names what it did not look up, as the pages name it; other English notices
 * are the runtime's own.
 */
export function kitchenStopNotice(stop: StopFacts): string {
  const zh = isChinese(stop.query);
  const notRun = stop.notRun;
  if (notRun !== undefined && notRun.length > 0) {
    const names = [...new Set(notRun.map((tool) => READS[tool]?.[zh ? 0 : 1] ?? tool))];
    return zh
      ? `提前停止：到了步数上限（${stop.limits.maxSteps} 步），没来得及查${names.join('、')}；上面的回答只用了已经查到的数据，不是家里没有这些数据。`
      : `Stopped early: the step limit (${stop.limits.maxSteps} model steps) came before ${names.join(', ')} could be looked up; the answer above uses only what was looked up, not a sign that your household has no such data.`;
  }
  return zh ? ZH[stop.reason](stop) : stop.text;
}
