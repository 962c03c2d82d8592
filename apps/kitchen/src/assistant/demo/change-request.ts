import type { KitchenAnswer } from '../cards.js';
import type { Seen } from './seen.js';

/** The app's pages where a family changes its data (the web app's navigation). */
export const KITCHEN_PAGES = {
  fridge: { zh: '「冰箱」页面', en: 'the Fridge page', path: '/fridge' },
  recipes: { zh: '「菜谱」页面', en: 'the Recipes page', path: '/recipes' },
  plan: { zh: '「本周菜单」页面', en: 'the Meal plan page', path: '/plan' },
  preferences: { zh: '「口味与过敏」页面', en: 'the Preferences page', path: '/preferences' },
} as const;

type Page = keyof typeof KITCHEN_PAGES;

const WHERE: readonly (readonly [Page, RegExp])[] = [
  [
    'plan',
    /菜单|计划|安排|早饭|午饭|晚饭|早餐|午餐|晚餐|周[一二三四五六日天]|plan|menu|schedule|breakfast|lunch|dinner/i,
  ],
  ['preferences', /过敏|忌口|偏好|口味|allerg|preference|diet/i],
  ['recipes', /菜谱|食谱|做法|recipe/i],
  ['fridge', /冰箱|冷冻|储物|食材|过期|fridge|freezer|pantry|expir/i],
];

/** The page a change request is about (default: the fridge, where most changes happen). */
export function pageFor(query: string): Page {
  return WHERE.find(([, pattern]) => pattern.test(query))?.[0] ?? 'fridge';
}

/**
 * The answer to "帮我把牛奶从冰箱里删掉": the assistant only reads, so it says so and where the
 * change is made. Nothing is called and nothing is changed.
 */
export function declineChange(query: string, zh: boolean, seen: Seen): KitchenAnswer {
  const page = KITCHEN_PAGES[pageFor(query)];
  const lines = [
    zh
      ? `我只能查看家里的数据，不能修改（添加、删除或更改）。请到${page.zh}（${page.path}）自己操作，改完后我就能看到。`
      : `I can only read your household's data, not change it (add, remove or edit). Please make the change on ${page.en} (${page.path}); I will see it once it is saved.`,
  ];
  // What the request names that is in the fridge now (牛奶 1盒, expired), read, not changed.
  const named = (seen.fridge() ?? []).filter((i) => query.toLowerCase().includes(i.name.toLowerCase()));
  if (named.length > 0) {
    const show = (i: (typeof named)[number]) => {
      const when =
        i.daysLeft === null
          ? ''
          : i.daysLeft < 0
            ? zh
              ? `，已过期 ${-i.daysLeft} 天`
              : `, expired ${-i.daysLeft} day(s) ago`
            : zh
              ? `，还剩 ${i.daysLeft} 天`
              : `, ${i.daysLeft} day(s) left`;
      return zh ? `${i.name} ${i.quantity}${i.unit}${when}` : `${i.name} ${i.quantity} ${i.unit}${when}`;
    };
    lines.push(
      zh ? `现在家里有：${named.map(show).join('；')}。` : `At home now: ${named.map(show).join('; ')}.`,
    );
  }
  return { reply: lines.join('\n'), cards: [] };
}
