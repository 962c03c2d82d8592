import type { Slot } from '../../domain/types.js';

/**
 * What a question to the kitchen demo model is about, recognised by keywords (Chinese and
 * English). `change` is a request to change the household's data, which the assistant cannot do.
 */
export type DemoIntent = 'change' | 'expiring' | 'cook' | 'plan' | 'allergies' | 'nutrition' | 'help';

/** One part of a question: its text and what it is about. */
export interface DemoPart {
  readonly intent: DemoIntent;
  readonly text: string;
  /** nutrition: the food asked about. */
  readonly food?: string;
  /** plan / cook: the meal asked about (晚饭 → dinner). */
  readonly slot?: Slot;
}

// Verbs of changing data (删掉牛奶, 加到冰箱, 改成…, remove the milk…): the first rule, since
// such a request names the fridge or a recipe too ("帮我把牛奶从冰箱里删掉" is no recipe question).
const CHANGE =
  /删掉|删除|删了|去掉|移除|清空|扔掉|添加|加到|加进|放进|存进|录入|改成|改为|修改|更新|换成|标记|写进|写入|安排上|\b(?:remove|delete|add|update|change|edit|mark|clear|throw out|replace)\b/i;

const RULES: readonly (readonly [DemoIntent, RegExp])[] = [
  ['change', CHANGE],
  ['nutrition', /营养|热量|卡路里|蛋白质|脂肪|碳水|千卡|nutrition|calorie|kcal|protein|carb/i],
  ['allergies', /过敏|忌口|偏好|不吃|饮食习惯|allerg|dietary|diet|preference/i],
  ['expiring', /过期|快坏|坏掉|到期|保质期|expir|going off|go off|use up|spoil/i],
  ['plan', /计划|安排|菜单|这周|本周|这个星期|下周|plan|this week|menu|schedule/i],
  [
    'cook',
    /做什么|吃什么|能做|做点|做菜|菜谱|晚饭|午饭|今晚|冰箱|cook|make|recipe|dinner|lunch|fridge|tonight/i,
  ],
];

/** Where a question splits into parts: sentence ends, "顺便 / 另外 / also", ", and …". */
const PARTS =
  /[？?。！!；;\n]+|顺便|另外|此外|还有|同时|\balso\b|,\s*and\b|\band\s+(?=how|what|which|is|are|tell|any)/i;

/** The intent of one part (the first rule that matches), `help` when none does. */
export function detectIntent(query: string): DemoIntent {
  return RULES.find(([, pattern]) => pattern.test(query))?.[0] ?? 'help';
}

const SLOTS: readonly (readonly [Slot, RegExp])[] = [
  ['dinner', /晚饭|晚餐|晚上吃|dinner|supper/i],
  ['lunch', /午饭|午餐|中午|lunch/i],
  ['breakfast', /早饭|早餐|早上吃|breakfast/i],
];

/** The meal a question is about (这周晚饭 → dinner), or undefined. */
export function slotOf(query: string): Slot | undefined {
  return SLOTS.find(([, pattern]) => pattern.test(query))?.[0];
}

/**
 * The parts of a question, in order, one per intent: "冰箱里有什么快过期了？顺便告诉我100克鸡蛋的
 * 热量" is an expiring part and a nutrition part (of 鸡蛋). A change request is answered alone.
 * Never empty: a question about nothing known is one `help` part.
 */
export function detectParts(query: string): DemoPart[] {
  const whole = detectIntent(query);
  if (whole === 'change') return [{ intent: 'change', text: query }];
  const parts: DemoPart[] = [];
  for (const text of query.split(PARTS).map((s) => s.trim())) {
    if (text === '') continue;
    const intent = detectIntent(text);
    if (intent === 'help' || parts.some((p) => p.intent === intent)) continue;
    const food = intent === 'nutrition' ? foodOf(text) : undefined;
    const slot = slotOf(text);
    parts.push({
      intent,
      text,
      ...(food === undefined ? {} : { food }),
      ...(slot === undefined ? {} : { slot }),
    });
  }
  if (parts.length > 0) return parts;
  const slot = slotOf(query);
  return [{ intent: whole, text: query, ...(slot === undefined ? {} : { slot }) }];
}

const ZH_FILLER =
  /请问|帮我|查一下|查查|查询|一下|告诉我|顺便|另外|再|的|营养成分|营养|热量|卡路里|蛋白质|脂肪|碳水化合物|碳水|千卡|多少|有多少|是多少|高不高|含量|每|一份|吗|呢|啊|什么|怎么样|有|？|\?|。|，|,|！|!/g;

/** "100克", "100 g of", "200g", "一百克", "1 cup of": amounts are not part of a food's name. */
const AMOUNT =
  /(?:\d+(?:\.\d+)?|[一二两三四五六七八九十百千]+)\s*(?:克|千克|公斤|斤|两|毫升|g|grams?|kg|ml|oz|cups?|pieces?)\b\s*(?:of\s+)?|(?:\d+(?:\.\d+)?|[一二两三四五六七八九十百千]+)\s*(?:克|千克|公斤|斤|两|毫升|个)/gi;

/** The food a nutrition question asks about (e.g. 鸡蛋的营养 → 鸡蛋; calories in 100 g of pork → pork). */
export function foodOf(query: string): string | undefined {
  const plain = query.replace(AMOUNT, ' ');
  const english =
    /(?:nutrition|calories|protein|fat|carbs?|kcal)\s+(?:facts\s+)?(?:of|in|for)\s+(?:an?\s+|the\s+|some\s+)?([a-z][a-z\s-]{1,40}?)\s*(?:\?|$|\.|,)/i.exec(
      plain,
    )?.[1] ??
    /^\s*(?:how\s+many\s+calories\s+(?:does|do|is|are)\s+(?:an?\s+|the\s+)?)([a-z][a-z\s-]{1,40}?)\s+(?:have|has|contain)/i.exec(
      plain,
    )?.[1];
  if (english !== undefined) return english.trim();
  const chinese = plain
    .replace(ZH_FILLER, ' ')
    .split(/\s+/)
    .map((s) => s.trim())
    .filter((s) => /[\u4e00-\u9fff]/.test(s))
    .sort((a, b) => b.length - a.length)[0];
  return chinese === undefined ? undefined : chinese.slice(0, 40);
}
