import type { KitchenAnswer, KitchenCard, NutritionCard, RecipeCard } from '../cards.js';
import { NUTRITION_UNAVAILABLE } from '../kitchen-answer.js';
import type { DemoIntent, DemoPart } from './intent.js';
import { declineChange } from './change-request.js';
import { memoryLine } from './memory-calls.js';
import { safeMatches, SOON_DAYS } from './plan-calls.js';
import type { Seen } from './seen.js';
import { allergyLine, list, unavailable, type Context, type Say } from './answer-context.js';
import { plan } from './write-plan.js';

export const KITCHEN_DEMO_NOTICE = {
  zh: '【演示模式：没有配置 AI 模型，这条回复由规则根据家里的真实数据生成。】',
  en: '[Demo mode: no AI model is configured; this reply was put together by rules from your household’s real data.]',
} as const;

function recipeCards(c: Context, reasonZh: string, reasonEn: string, preferSoon = false): RecipeCard[] {
  return safeMatches(c.seen, preferSoon)
    .slice(0, 3)
    .map((m) => ({
      type: 'recipe',
      name: m.recipe.name,
      reason: c.say(reasonZh, reasonEn),
      uses: [...m.matched],
      missing: [...m.missing],
      tags: [...m.recipe.tags],
    }));
}

function nutritionCard(c: Context, food: string | undefined): { card?: NutritionCard; line: string } {
  const failed = c.seen.failed('nutrition_lookup');
  if (failed !== undefined && failed !== 'INVALID_PARAMETER') {
    return { line: c.zh ? NUTRITION_UNAVAILABLE.zh : NUTRITION_UNAVAILABLE.en };
  }
  const n = food === undefined ? c.seen.nutrition() : c.seen.nutritionFor(food);
  if (n === undefined) return { line: '' };
  if (n.provenance === 'mcp_exact') {
    const p = n.entry.per100g;
    return {
      card: {
        type: 'nutrition',
        food: n.food,
        basis: 'per_100g',
        values: {
          energyKcal: p.energyKcal,
          proteinG: p.proteinG,
          fatG: p.fatG,
          carbohydrateG: p.carbohydrateG,
        },
      },
      line: c.say(
        `${n.food}（${n.entry.name}）每 100 克约 ${p.energyKcal ?? '?'} 千卡、蛋白质 ${p.proteinG ?? '?'} 克，数据来自 ${n.entry.source}。`,
        `${n.food} (${n.entry.name}): about ${p.energyKcal ?? '?'} kcal and ${p.proteinG ?? '?'} g protein per 100 g, from ${n.entry.source}.`,
      ),
    };
  }
  if (n.provenance === 'mcp_derived') {
    const p = n.dish.perServing;
    return {
      card: { type: 'nutrition', food: n.food, basis: 'per_serving', values: { ...p } },
      line: c.say(
        `按家里的菜谱推算，${n.dish.recipeName}每份约 ${p.energyKcal ?? '?'} 千卡、蛋白质 ${p.proteinG ?? '?'} 克（由配料推算，不是实测）。`,
        `From your recipe's ingredients, ${n.dish.recipeName} is about ${p.energyKcal ?? '?'} kcal and ${p.proteinG ?? '?'} g protein per serving (computed, not measured).`,
      ),
    };
  }
  return {
    line: c.say(
      `营养表里没有“${n.food}”的数据，我不编造数字。`,
      `The nutrition table has no entry for "${n.food}", and I will not make numbers up.`,
    ),
  };
}

function expiring(c: Context): KitchenAnswer {
  const items = c.seen.fridge();
  if (items === undefined) return unavailable(c, 'fridge_items');
  const expired = items.filter((i) => i.daysLeft !== null && i.daysLeft < 0);
  const soon = items.filter((i) => i.daysLeft !== null && i.daysLeft >= 0 && i.daysLeft <= SOON_DAYS);
  const show = (i: (typeof items)[number]) =>
    c.say(
      `${i.name} ${i.quantity}${i.unit}（${i.daysLeft === 0 ? '今天到期' : `还剩 ${i.daysLeft} 天`}）`,
      `${i.name} ${i.quantity} ${i.unit} (${i.daysLeft === 0 ? 'due today' : `${i.daysLeft} day(s) left`})`,
    );
  const total = c.seen.fridgeTotal() ?? items.length;
  const lines = [
    ...(total > items.length
      ? [
          c.say(
            `家里共有 ${total} 件食材，这里看的是最早到期的 ${items.length} 件。`,
            `There are ${total} items at home; these are the ${items.length} that expire first.`,
          ),
        ]
      : []),
    soon.length === 0
      ? c.say('接下来三天没有快过期的食材。', 'Nothing is due in the next three days.')
      : c.say(`快过期的：${list(true, soon.map(show))}。`, `Due soon: ${list(false, soon.map(show))}.`),
    ...(expired.length === 0
      ? []
      : [
          c.say(
            `已经过期：${list(
              true,
              expired.map((i) => i.name),
            )}，建议检查后丢弃。`,
            `Already expired: ${list(
              false,
              expired.map((i) => i.name),
            )}; check them and throw them out.`,
          ),
        ]),
  ];
  const cards = recipeCards(c, '用上快过期的食材', 'uses up what is due soon', true);
  if (cards.length > 0)
    lines.push(
      c.say(
        `可以先做：${list(
          true,
          cards.map((r) => r.name),
        )}。`,
        `Cook first: ${list(
          false,
          cards.map((r) => r.name),
        )}.`,
      ),
    );
  const allergy = allergyLine(c);
  return { reply: lines.concat(allergy === undefined ? [] : [allergy]).join('\n'), cards };
}

function cook(c: Context): KitchenAnswer {
  if (c.seen.recipes() === undefined) return unavailable(c, 'search_recipes');
  const recipes = recipeCards(c, '冰箱里的食材就能做', 'you have most of it at home');
  const cards: KitchenCard[] = [...recipes];
  const lines = [
    recipes.length === 0
      ? c.say(
          '家里的菜谱和现有食材对不上，可以先添加一些菜谱。',
          'None of your recipes fits what you have; add a few recipes first.',
        )
      : c.say(
          `用冰箱里现有的食材，推荐：${list(
            true,
            recipes.map((r) => r.name),
          )}。`,
          `With what is in your fridge, try: ${list(
            false,
            recipes.map((r) => r.name),
          )}.`,
        ),
  ];
  const top = safeMatches(c.seen)[0];
  if (top !== undefined && top.missing.length > 0)
    lines.push(
      c.say(
        `${top.recipe.name}还缺：${list(true, top.missing)}。`,
        `${top.recipe.name} still needs: ${list(false, top.missing)}.`,
      ),
    );
  const nutrition = top === undefined ? { line: '' } : nutritionCard(c, top.recipe.name);
  if (nutrition.line !== '') lines.push(nutrition.line);
  if (nutrition.card !== undefined) cards.push(nutrition.card);
  const allergy = allergyLine(c);
  if (allergy !== undefined) lines.push(allergy);
  return { reply: lines.join('\n'), cards };
}

function allergies(c: Context): KitchenAnswer {
  const profile = c.seen.profile();
  if (profile === undefined) return unavailable(c, 'household_preferences');
  const show = (n: (typeof profile.allergies)[number]) =>
    `${n.person === null ? '' : `${n.person}：`}${n.label}${n.note === null ? '' : `（${n.note}）`}`;
  const lines = [
    profile.allergies.length === 0
      ? c.say('家里没有登记过敏。', 'No allergies are recorded for your household.')
      : c.say(
          `过敏：${profile.allergies.map(show).join('；')}。`,
          `Allergies: ${profile.allergies.map(show).join('; ')}.`,
        ),
    profile.preferences.length === 0
      ? c.say('没有登记饮食偏好。', 'No dietary preferences are recorded.')
      : c.say(
          `饮食偏好：${profile.preferences.map(show).join('；')}。`,
          `Preferences: ${profile.preferences.map(show).join('; ')}.`,
        ),
  ];
  return { reply: lines.join('\n'), cards: [] };
}

function nutrition(c: Context): KitchenAnswer {
  if (c.food === undefined)
    return {
      reply: c.say(
        '想查哪种食材或哪道菜的营养？比如：“鸡蛋的营养”。',
        'Which food or dish? For example: "nutrition of egg".',
      ),
      cards: [],
    };
  const { card, line } = nutritionCard(c, c.food);
  return {
    reply: line === '' ? c.say('没有查到营养数据。', 'No nutrition data was found.') : line,
    cards: card === undefined ? [] : [card],
  };
}

function help(c: Context): KitchenAnswer {
  return {
    reply: c.say(
      '我可以帮你：看看冰箱里快过期的食材、用现有食材推荐家里的菜谱、查看本周菜单并补上空着的晚饭、说明家人的过敏和偏好、查询食材或菜品的营养。试试问：“冰箱里有什么快过期了？”',
      'I can: list what in your fridge is about to expire, suggest your recipes from what you have, show this week’s plan and fill open dinners, tell you about allergies and preferences, and look up the nutrition of a food or dish. Try: "What is expiring soon?"',
    ),
    cards: [],
  };
}

const WRITERS: Readonly<Record<DemoIntent, (c: Context) => KitchenAnswer>> = {
  expiring,
  cook,
  plan,
  allergies,
  nutrition,
  help,
  change: (c) => declineChange(c.text, c.zh, c.seen),
};

/** The final answer from what the tools returned, demo-labeled. */
export function writeAnswer(
  parts: readonly DemoPart[],
  seen: Seen,
  options: { zh: boolean; today: string; followUp?: string | undefined },
): KitchenAnswer {
  const say: Say = (zh, en) => (options.zh ? zh : en);
  // Every part of the question answered in turn; a line two parts share (allergies) once.
  const answers = parts.map((part) =>
    WRITERS[part.intent]({
      seen,
      say,
      zh: options.zh,
      today: options.today,
      food: part.food,
      slot: part.slot,
      text: part.text,
    }),
  );
  const lines = [...new Set(answers.flatMap((a) => a.reply.split('\n')))];
  const answer = { reply: lines.join('\n'), cards: answers.flatMap((a) => a.cards) };
  const notice = options.zh ? KITCHEN_DEMO_NOTICE.zh : KITCHEN_DEMO_NOTICE.en;
  // A follow-up says what it understood, so a wrong reading is visible at once.
  const understood =
    options.followUp === undefined
      ? ''
      : say(
          `（接着上一个问题：${options.followUp}）
`,
          `(Following up: ${options.followUp})
`,
        );
  const remembered = memoryLine(seen, options.zh);
  const head =
    remembered === undefined
      ? notice
      : `${notice}
${remembered}`;
  return {
    reply: `${head}
${understood}${answer.reply}`.slice(0, 4_000),
    cards: answer.cards.slice(0, 12),
  };
}
