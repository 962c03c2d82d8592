import { defineAnswer, type Observation } from 'reins';
import type { z } from 'zod';
import { normalizeName } from '../domain/ingredient-names.js';
import {
  kitchenAnswer,
  type KitchenAnswer,
  type KitchenCard,
  type MealPlanCard,
  type NutritionCard,
  type RecipeCard,
} from './cards.js';
import type { NutrientKey } from './dish-nutrition.js';
import { isChinese } from './language.js';
import { recalledMemories } from './memory-evidence.js';
import { nutritionOutput } from './nutrition-tool.js';
import { mealPlanOutput, recipeSearchOutput } from './schemas.js';

const NUTRIENT_ZH: Readonly<Record<NutrientKey, string>> = {
  energyKcal: '热量',
  proteinG: '蛋白质',
  fatG: '脂肪',
  carbohydrateG: '碳水化合物',
};
const NUTRIENT_EN: Readonly<Record<NutrientKey, string>> = {
  energyKcal: 'energy',
  proteinG: 'protein',
  fatG: 'fat',
  carbohydrateG: 'carbohydrate',
};

type NutritionResult = z.infer<typeof nutritionOutput>;

/** What the run's tools really returned, indexed for stamping. */
interface Evidence {
  /** nutrition_lookup results by normalized food / entry / dish name. */
  readonly nutrition: Map<string, NutritionResult>;
  /** Household recipe ids by normalized name (from search_recipes, meal_plan, dish nutrition). */
  readonly recipes: Map<string, string>;
  /** `date|slot|name` of entries on the household's plan. */
  readonly planned: Set<string>;
  /** A nutrition lookup failed (service down, slow): the reply must say so. */
  readonly nutritionUnavailable: boolean;
}

function collect(observations: readonly Observation[]): Evidence {
  const nutrition = new Map<string, NutritionResult>();
  const recipes = new Map<string, string>();
  const planned = new Set<string>();
  let nutritionUnavailable = false;
  for (const o of observations) {
    if (o.tool === 'nutrition_lookup') {
      if (o.status !== 'ok') {
        if (o.error?.layer !== 'input') nutritionUnavailable = true;
        continue;
      }
      const parsed = nutritionOutput.safeParse(o.result);
      if (!parsed.success) continue;
      const r = parsed.data;
      const names = [r.food];
      if (r.provenance === 'mcp_exact')
        names.push(r.entry.name, ...(r.entry.matchedAlias ? [r.entry.matchedAlias] : []));
      if (r.provenance === 'mcp_derived') {
        names.push(r.dish.recipeName);
        recipes.set(normalizeName(r.dish.recipeName), r.dish.recipeId);
      }
      for (const name of names)
        if (!nutrition.has(normalizeName(name))) nutrition.set(normalizeName(name), r);
    } else if (o.tool === 'search_recipes' && o.status === 'ok') {
      const parsed = recipeSearchOutput.safeParse(o.result);
      if (parsed.success)
        for (const m of parsed.data.matches) recipes.set(normalizeName(m.recipe.name), m.recipe.id);
    } else if (o.tool === 'meal_plan' && o.status === 'ok') {
      const parsed = mealPlanOutput.safeParse(o.result);
      if (!parsed.success) continue;
      for (const e of parsed.data.entries) {
        recipes.set(normalizeName(e.recipeName), e.recipeId);
        planned.add(`${e.date}|${e.slot}|${normalizeName(e.recipeName)}`);
      }
    }
  }
  return { nutrition, recipes, planned, nutritionUnavailable };
}

export const NUTRITION_UNAVAILABLE = {
  zh: '营养数据暂时不可用（营养数据服务没有应答），这里不提供营养数值。',
  en: 'Nutrition data is unavailable right now (the nutrition data service did not answer), so no nutrition numbers are given.',
} as const;

function stampNutrition(card: NutritionCard, evidence: Evidence, zh: boolean): NutritionCard {
  const hit = evidence.nutrition.get(normalizeName(card.food));
  const base = { type: 'nutrition' as const, food: card.food };
  if (hit?.provenance === 'mcp_exact') {
    const p = hit.entry.per100g;
    return {
      ...base,
      basis: 'per_100g',
      values: {
        energyKcal: p.energyKcal,
        proteinG: p.proteinG,
        fatG: p.fatG,
        carbohydrateG: p.carbohydrateG,
      },
      provenance: 'mcp_exact',
      source: `${hit.entry.source}: ${hit.entry.name} (${hit.entry.code})`,
      ...(hit.entry.note === null ? {} : { note: hit.entry.note.slice(0, 400) }),
    };
  }
  if (hit?.provenance === 'mcp_derived') {
    const counted = hit.dish.ingredients.filter((i) => i.status === 'counted');
    const left = hit.dish.ingredients.filter((i) => i.status !== 'counted').map((i) => i.name);
    // A counted ingredient whose value the table does not give (an oil's energy) is not in that sum.
    const gaps = counted.filter((i) => i.notGiven !== undefined && i.notGiven.length > 0);
    const gapsZh = gaps.map(
      (i) => `${i.name}（${(i.notGiven ?? []).map((k) => NUTRIENT_ZH[k]).join('、')}）`,
    );
    const gapsEn = gaps.map((i) => `${i.name} (${(i.notGiven ?? []).map((k) => NUTRIENT_EN[k]).join(', ')})`);
    const note = zh
      ? `按家里菜谱的配料和用量推算（${hit.dish.servings} 人份中的 1 份），计入 ${counted.length}/${hit.dish.ingredients.length} 种配料${left.length > 0 ? `；未计入：${left.join('、')}` : ''}${gaps.length > 0 ? `；营养表未给出、未计入：${gapsZh.join('、')}` : ''}。`
      : `Computed from the household recipe's ingredients and quantities (1 of ${hit.dish.servings} servings); ${counted.length} of ${hit.dish.ingredients.length} ingredients counted${left.length > 0 ? `; not counted: ${left.join(', ')}` : ''}${gaps.length > 0 ? `; not given by the table, so not in the sums: ${gapsEn.join(', ')}` : ''}.`;
    return {
      ...base,
      basis: 'per_serving',
      values: { ...hit.dish.perServing },
      provenance: 'mcp_derived',
      source: 'IFCT 2017, via the recipe ingredients',
      note: note.slice(0, 400),
    };
  }
  // No table data behind this card: whatever numbers the model wrote are its own estimate.
  const note = evidence.nutritionUnavailable
    ? zh
      ? '营养数据服务不可用：数值（如有）只是模型估计。'
      : 'The nutrition data service is unavailable: any number here is only the model’s estimate.'
    : zh
      ? '营养表中没有这项数据：数值（如有）只是模型估计。'
      : 'No entry in the nutrition table: any number here is only the model’s estimate.';
  const { source: _source, provenance: _claimed, ...rest } = card;
  return { ...rest, provenance: 'llm_estimate', note };
}

function stampRecipe(card: RecipeCard, evidence: Evidence): RecipeCard {
  const { recipeId: _claimed, origin: _origin, ...rest } = card;
  const id = evidence.recipes.get(normalizeName(card.name));
  return id === undefined
    ? { ...rest, origin: 'suggestion' }
    : { ...rest, recipeId: id, origin: 'household' };
}

function stampMealPlan(card: MealPlanCard, evidence: Evidence): MealPlanCard {
  return {
    ...card,
    entries: card.entries.map((e) => {
      const { recipeId: _claimed, ...rest } = e;
      const name = normalizeName(e.recipeName);
      const id = evidence.recipes.get(name);
      // "planned" only when the household's plan really has it; anything else is a suggestion.
      const status = evidence.planned.has(`${e.date}|${e.slot}|${name}`) ? 'planned' : 'suggested';
      return { ...rest, status, ...(id === undefined ? {} : { recipeId: id }) };
    }),
  };
}

/**
 * Re-stamps an answer from the run's observations: nutrition values and provenance come from
 * the nutrition_lookup results (`mcp_exact` per 100 g, `mcp_derived` per serving) or are
 * `llm_estimate`; recipe ids, "planned" and the memories used come only from what the tools returned. When a
 * nutrition lookup failed, the reply says nutrition data is unavailable.
 */
export function finalizeKitchenAnswer(
  data: KitchenAnswer,
  evidence: { readonly observations: readonly Observation[] },
): KitchenAnswer {
  const seen = collect(evidence.observations);
  const zh = isChinese(data.reply);
  const cards = data.cards.map((card): KitchenCard => {
    switch (card.type) {
      case 'nutrition':
        return stampNutrition(card, seen, zh);
      case 'recipe':
        return stampRecipe(card, seen);
      case 'meal_plan':
        return stampMealPlan(card, seen);
    }
  });
  const says = /不可用|unavailable/i.test(data.reply);
  const reply =
    seen.nutritionUnavailable && !says
      ? `${data.reply.slice(0, 3_800)}\n${zh ? NUTRITION_UNAVAILABLE.zh : NUTRITION_UNAVAILABLE.en}`
      : data.reply;
  // Which memories the answer used: only what recall_memories returned, never the model's claim.
  const memories = recalledMemories(evidence.observations);
  return { reply, cards, ...(memories.length === 0 ? {} : { memories }) };
}

/** The kitchen assistant's answer format (`answer` of the agent definition). */
export const kitchenAnswerFormat = defineAnswer<KitchenAnswer>({
  schema: kitchenAnswer,
  text: (data) => data.reply,
  finalize: finalizeKitchenAnswer,
});
