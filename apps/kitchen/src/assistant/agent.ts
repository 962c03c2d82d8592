import type { AnswerFormat, AnyTool, Model, RunLimits, StopNoticeWriter } from 'reins';
import type { KitchenAnswer } from './cards.js';
import { kitchenReads } from '../services/assistant-reads.js';
import type { KitchenServices } from '../services/kitchen-services.js';
import { kitchenTools } from './kitchen-tools.js';
import { kitchenAnswerFormat } from './kitchen-answer.js';
import { kitchenTurnAbout } from './turn-about.js';
import { memoryTools } from './memory-tools.js';
import { kitchenStopNotice } from './stop-notice.js';
import { nutritionTool, type NutritionLookup } from './nutrition-tool.js';

export const KITCHEN_INSTRUCTIONS = [
  '你是“小家厨房”的家庭菜单助手。只根据工具返回的数据回答：冰箱食材、家里的菜谱、菜单安排、过敏与饮食偏好、营养数据。',
  '工具没有返回的数据就说“没有这方面的数据”，不要编造食材、菜谱或营养数值。推荐菜品前先查看过敏与偏好。',
  '营养数值只能来自 nutrition_lookup，并注明来源；查不到就说明查不到。用用户的语言回答。',
  '最终回答是 JSON 对象 {"reply": 回复文字, "cards": 动作卡片}：菜谱卡 recipe、营养卡 nutrition、菜单建议卡 meal_plan。',
  'You are the Xiaojia Kitchen family-menu assistant. Answer only from what the tools returned: fridge items, ' +
    "the household's recipes, its meal plan, allergies and preferences, nutrition data.",
  'When the tools have no data for something, say the data is missing; never invent items, recipes or numbers. ' +
    'Check allergies and preferences before suggesting a dish. Nutrition numbers come only from nutrition_lookup.',
  'The household is always the signed-in user’s own; tools take no household id.',
  '你只能读取数据。用户要求添加、删除或修改（冰箱食材、菜谱、菜单、过敏与偏好）时，说明你只能查看，并告诉他们去哪个页面操作：' +
    '「冰箱」/fridge、「菜谱」/recipes、「本周菜单」/plan、「口味与过敏」/preferences。' +
    'You can only read: when asked to add, remove or change something, say so and name the page where the family does it ' +
    '(Fridge, Recipes, Meal plan, Preferences).',
  '一个问题有几部分时每部分都要回答（或说明哪部分没回答）。search_recipes 自己读取整个冰箱和储物柜，不必把食材列给它。' +
    '问某一餐（晚饭/午饭/早饭）时只算那一餐。Answer every part of a question (or say which part is left). ' +
    'search_recipes reads the whole fridge and pantry itself. A question about one meal (dinner) counts only that meal.',
  '家里记下的事项用 recall_memories 回忆；只有用户要求“记住……”时才用 remember_memory（用户确认后才会写入）。' +
    'Recall household memories with recall_memories; call remember_memory only when the user asks you to remember something (it runs after the user approves).',
].join('\n');

export interface KitchenAgentOptions {
  readonly model: Model;
  /** The nutrition data service (the nutrition MCP server through `@reins/mcp`); a fake in tests. */
  readonly nutrition: NutritionLookup;
  /** Overrides of the run limits; `maxSteps` stays at most 4. */
  readonly limits?: Partial<RunLimits>;
  /** The nutrition tool's timeout (a dish looks up all its ingredients). Default 8 000 ms. */
  readonly nutritionTimeoutMs?: number;
  /**
   * Is the nutrition server reachable (cheap, no side effect)? The nutrition tool's breaker runs
   * it as its half-open probe once its open period ends, so it closes when the server is back.
   */
  readonly nutritionProbe?: () => Promise<boolean>;
}

/** The assistant as `@reins/server` takes it (`AgentDefinition`): model, tools, limits, role. */
export interface KitchenAgentDefinition {
  readonly model: Model;
  readonly tools: readonly AnyTool[];
  readonly limits: Partial<RunLimits>;
  readonly instructions: string;
  /** The structured final answer: reply + action cards, re-stamped by code (`finalizeKitchenAnswer`). */
  readonly answer: AnswerFormat<KitchenAnswer>;
  /** What a turn of a conversation was about (its cards' recipe, food, plan), for the next turns. */
  readonly turnAbout: typeof kitchenTurnAbout;
  /** A stop (a step limit, the deadline …) said in the question's language: `kitchenStopNotice`. */
  readonly stopNotice: StopNoticeWriter;
}

/**
 * The kitchen assistant: six read-only tools (the household reads, memory recall, nutrition) and
 * `remember_memory`, which waits for the user's approval; at most 4 model
 * steps (the last one offers no tools). The tools read the household from each run's
 * `ctx.principal`, so one definition serves every user: `agents: { kitchen: kitchenAgent(…) }`.
 * Each tool has a `version` and `lastUpdated`: a changed definition needs both bumped and
 * `kitchen tools approve` (the drift guard test compares with `tools.approved.json`).
 */
export function kitchenAgent(
  services: KitchenServices,
  options: KitchenAgentOptions,
): KitchenAgentDefinition {
  const maxSteps = Math.min(options.limits?.maxSteps ?? 4, 4);
  const reads = kitchenReads(services);
  return {
    model: options.model,
    tools: [
      ...kitchenTools(reads),
      ...memoryTools(services.memories),
      nutritionTool(options.nutrition, {
        dishes: reads.recipeNamed,
        ...(options.nutritionTimeoutMs === undefined ? {} : { timeoutMs: options.nutritionTimeoutMs }),
        ...(options.nutritionProbe === undefined ? {} : { probe: options.nutritionProbe }),
      }),
    ],
    // Every tool round stays in full view (the answer cites the first round's fridge items).
    limits: { historyFullSteps: 3, ...options.limits, maxSteps },
    instructions: KITCHEN_INSTRUCTIONS,
    answer: kitchenAnswerFormat,
    turnAbout: kitchenTurnAbout,
    stopNotice: kitchenStopNotice,
  };
}
