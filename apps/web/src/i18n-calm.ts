import { errorText } from './error-text.js';

/**
 * The texts of issue 19's calm page (the family's view of a run, confirmations, weekdays, the
 * compact header, error codes), merged into `i18n.ts`'s tables: kept apart so each file stays small.
 */
const TOOL_EN: Record<string, string> = {
  fridge_items: 'Looked in the fridge',
  search_recipes: 'Looked through the recipes',
  meal_plan: 'Looked at the meal plan',
  meal_plan_week: 'Looked at the meal plan',
  household_preferences: 'Checked allergies and preferences',
  recall_memories: 'Recalled what the family asked to remember',
  remember_memory: 'Noted something for the family',
  nutrition_lookup: 'Looked up nutrition data',
};
const TOOL_ZH: Record<string, string> = {
  fridge_items: '看了看冰箱',
  search_recipes: '翻了翻菜谱',
  meal_plan: '看了看菜单',
  meal_plan_week: '看了看菜单',
  household_preferences: '查了过敏和口味',
  recall_memories: '想了想家里记下的事',
  remember_memory: '为全家记下一件事',
  nutrition_lookup: '查了营养数据',
};

export const EN_CALM = {
  howIGotThis: 'How I got this',
  toolStep: (tool: string) => TOOL_EN[tool] ?? 'Looked something up',
  foundCount: (n: number) => (n === 1 ? '1 found' : `${n} found`),
  stepFailed: 'this step did not work',
  stepOk: 'done',
  errorText: (code: string) => errorText(code, 'en'),
  nutrientLabel: (key: string) =>
    ({
      energyKcal: 'Energy (kcal)',
      proteinG: 'Protein (g)',
      fatG: 'Fat (g)',
      carbohydrateG: 'Carbohydrate (g)',
      fibreG: 'Fibre (g)',
      sodiumMg: 'Sodium (mg)',
    })[key] ?? key,
  weekday: (i: number) => ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][i] ?? '',
  developer: 'For developers',
  openMenu: 'Menu',
  confirmRemove: (name: string) => `Remove “${name}”?`,
  confirmYes: 'Yes, remove',
  removed: (name: string) => `Removed “${name}”.`,
  undo: 'Undo',
  useHowMuch: (name: string, unit: string) => `Use how much ${name} (${unit})?`,
  useAll: 'All',
  useConfirm: 'Use',
};

export const ZH_CALM: typeof EN_CALM = {
  howIGotThis: '我是怎么得出的',
  toolStep: (tool: string) => TOOL_ZH[tool] ?? '查了一些资料',
  foundCount: (n: number) => `找到 ${n} 项`,
  stepFailed: '这一步没有成功',
  stepOk: '好了',
  errorText: (code: string) => errorText(code, 'zh'),
  nutrientLabel: (key: string) =>
    ({
      energyKcal: '热量（千卡）',
      proteinG: '蛋白质（克）',
      fatG: '脂肪（克）',
      carbohydrateG: '碳水化合物（克）',
      fibreG: '膳食纤维（克）',
      sodiumMg: '钠（毫克）',
    })[key] ?? key,
  weekday: (i: number) => ['周一', '周二', '周三', '周四', '周五', '周六', '周日'][i] ?? '',
  developer: '开发者',
  openMenu: '菜单',
  confirmRemove: (name: string) => `删除“${name}”？`,
  confirmYes: '确定删除',
  removed: (name: string) => `已删除“${name}”。`,
  undo: '撤销',
  useHowMuch: (name: string, unit: string) => `用掉多少${name}（${unit}）？`,
  useAll: '全部',
  useConfirm: '用掉',
};
