/** What a question to the kitchen demo model is about, recognised by keywords (Chinese and English). */
export type DemoIntent = 'expiring' | 'cook' | 'plan' | 'allergies' | 'nutrition' | 'help';

const RULES: readonly (readonly [DemoIntent, RegExp])[] = [
  ['nutrition', /营养|热量|卡路里|蛋白质|脂肪|碳水|千卡|nutrition|calorie|kcal|protein|carb/i],
  ['allergies', /过敏|忌口|偏好|不吃|饮食习惯|allerg|dietary|diet|preference/i],
  ['expiring', /过期|快坏|坏掉|到期|保质期|expir|going off|go off|use up|spoil/i],
  ['plan', /计划|安排|菜单|这周|本周|这个星期|下周|plan|this week|menu|schedule/i],
  ['cook', /做什么|吃什么|能做|做点|做菜|菜谱|晚饭|午饭|今晚|冰箱|cook|make|recipe|dinner|lunch|fridge/i],
];

export function detectIntent(query: string): DemoIntent {
  return RULES.find(([, pattern]) => pattern.test(query))?.[0] ?? 'help';
}

const ZH_FILLER =
  /请问|帮我|查一下|查查|查询|一下|告诉我|的|营养成分|营养|热量|卡路里|蛋白质|脂肪|碳水化合物|碳水|千卡|多少|有多少|是多少|高不高|含量|每100克|每一百克|100克|一百克|一份|吗|呢|啊|什么|怎么样|有|？|\?|。|，|,|！|!/g;

/** The food a nutrition question asks about (e.g. 鸡蛋的营养 → 鸡蛋; calories in pork → pork). */
export function foodOf(query: string): string | undefined {
  const english =
    /(?:nutrition|calories|protein|fat|carbs?|kcal)\s+(?:facts\s+)?(?:of|in|for)\s+(?:an?\s+|the\s+)?([a-z][a-z\s-]{1,40}?)\s*(?:\?|$|\.|,)/i.exec(
      query,
    )?.[1];
  if (english !== undefined) return english.trim();
  const chinese = query
    .replace(ZH_FILLER, ' ')
    .split(/\s+/)
    .map((s) => s.trim())
    .filter((s) => /[\u4e00-\u9fff]/.test(s))
    .sort((a, b) => b.length - a.length)[0];
  return chinese === undefined ? undefined : chinese.slice(0, 40);
}

export const isChinese = (text: string): boolean => /[\u4e00-\u9fff]/.test(text);
