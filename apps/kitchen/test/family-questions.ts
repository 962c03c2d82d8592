/**
 * Questions families ask the kitchen assistant (issue 19), with what a trustworthy answer
 * needs: the tools the agent must call, the cards it shows and the facts in the reply. Run on
 * both agents (`kitchen`, ReAct; `kitchen-plan`, plan-and-execute) with the demo model over the
 * seeded demo households (today 2026-05-01, 小贾家 unless `user` says otherwise).
 */
export interface FamilyQuestion {
  readonly q: string;
  /** Demo user asking. Default `xiaojia` (小贾家). */
  readonly user?: 'xiaojia' | 'laowang';
  /** Tools both agents must call. */
  readonly tools: readonly string[];
  /** Tools neither agent may call. */
  readonly never?: readonly string[];
  /** Card types the answer must carry (each at least once). */
  readonly cards?: readonly ('recipe' | 'nutrition' | 'meal_plan')[];
  /** Text the reply must contain. */
  readonly has: readonly string[];
  /** Text the reply must not contain. */
  readonly not?: readonly string[];
  /** Ingredients no recipe card may list as missing (they are at home). */
  readonly notMissing?: readonly string[];
  /** Foods the nutrition service must have been asked for (after the English → Chinese mapping). */
  readonly looked?: readonly string[];
}

/** Replies that blame the household's data (issue 19): never right when the data is there. */
export const BLAMES_DATA = [
  '暂时读不到',
  'could not read',
  '对不上',
  'None of your recipes fits',
  'TRUNCATED',
  'Which food or dish',
  '想查哪种食材',
];

const READS = ['fridge_items', 'search_recipes', 'household_preferences'];
/** The one tool that writes (after the user approves): a change request must not reach it. */
const NO_WRITES = ['remember_memory'];

export const FAMILY_QUESTIONS: readonly FamilyQuestion[] = [
  // What can I cook: the household's recipes against the whole fridge and pantry.
  {
    q: 'What can I cook tonight?',
    tools: READS,
    cards: ['recipe'],
    has: ['蒜蓉西兰花'],
    notMissing: ['大蒜', '郫县豆瓣酱', '西兰花', '鸡蛋'],
  },
  {
    q: '今晚能做什么菜？',
    tools: READS,
    cards: ['recipe'],
    has: ['推荐'],
    notMissing: ['大蒜', '郫县豆瓣酱'],
  },
  { q: '今晚吃什么？', tools: READS, cards: ['recipe'], has: ['推荐'] },
  { q: '冰箱里的东西能做什么？', tools: READS, cards: ['recipe'], has: ['推荐'] },
  {
    q: 'What should I make for dinner with what is in the fridge?',
    tools: READS,
    cards: ['recipe'],
    has: ['try'],
  },
  { q: 'Any recipe ideas for lunch?', tools: READS, cards: ['recipe'], has: ['try'] },
  { q: '晚饭做点什么好？', tools: READS, cards: ['recipe'], has: ['推荐'] },
  { q: '家里有什么菜谱能做？', tools: READS, cards: ['recipe'], has: ['推荐'] },
  {
    q: '今晚能做什么菜？',
    user: 'laowang',
    tools: READS,
    cards: ['recipe'],
    has: ['白菜炖豆腐'],
    not: ['可乐鸡翅'],
  },
  { q: 'What can I cook tonight?', user: 'laowang', tools: READS, cards: ['recipe'], has: ['try'] },
  // Expiring.
  { q: '冰箱里有什么快过期了？', tools: ['fridge_items'], has: ['嫩豆腐', '肉末', '牛奶'] },
  { q: 'What is expiring soon?', tools: ['fridge_items'], has: ['Due soon', '嫩豆腐'] },
  { q: '有什么食材要赶紧用掉吗？快坏了', tools: ['fridge_items'], has: ['快过期的'] },
  { q: 'What should I use up before it goes off?', tools: ['fridge_items'], has: ['Due soon'] },
  { q: '哪些东西已经过期了？', tools: ['fridge_items'], has: ['已经过期', '牛奶'] },
  { q: '冰箱里有什么快过期了？', user: 'laowang', tools: ['fridge_items'], has: ['鲈鱼'], not: ['嫩豆腐'] },
  // This week's plan, meal slots respected.
  {
    q: '这周的菜单怎么安排？',
    tools: ['meal_plan'],
    cards: ['meal_plan'],
    has: ['这周已安排 4 顿饭（5 道菜）', '午饭 麻婆豆腐'],
  },
  {
    q: '这周晚饭怎么安排？',
    tools: ['meal_plan'],
    cards: ['meal_plan'],
    has: ['这周已安排 3 顿晚饭（4 道菜）', '晚饭 番茄炒蛋、蒜蓉西兰花'],
    not: ['午饭', '麻婆豆腐'],
  },
  {
    q: '这周午饭吃什么？',
    tools: ['meal_plan'],
    cards: ['meal_plan'],
    has: ['1 顿午饭（1 道菜）', '午饭 麻婆豆腐'],
  },
  {
    q: "What's the plan for dinners this week?",
    tools: ['meal_plan'],
    cards: ['meal_plan'],
    has: ['3 dinner(s) planned this week (4 dish(es))'],
  },
  {
    q: "What's the plan this week?",
    tools: ['meal_plan'],
    cards: ['meal_plan'],
    has: ['4 meal(s) planned this week (5 dish(es))', 'lunch 麻婆豆腐'],
  },
  { q: '本周菜单', tools: ['meal_plan'], cards: ['meal_plan'], has: ['这周已安排'] },
  {
    q: '这周的菜单怎么安排？',
    user: 'laowang',
    tools: ['meal_plan'],
    cards: ['meal_plan'],
    has: ['清蒸鲈鱼'],
  },
  // Allergies and preferences.
  { q: '家里谁有过敏？', tools: ['household_preferences'], has: ['花生', '小宝'] },
  { q: 'Any allergies I should know about?', tools: ['household_preferences'], has: ['花生'] },
  { q: '家里有什么忌口？', tools: ['household_preferences'], has: ['不吃香菜'] },
  { q: '家里谁有过敏？', user: 'laowang', tools: ['household_preferences'], has: ['虾'], not: ['花生'] },
  // Nutrition: English names map to the table as Chinese ones do.
  {
    q: '鸡蛋的营养成分',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['134.5'],
    looked: ['鸡蛋'],
  },
  {
    q: 'nutrition of egg',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['134.5'],
    looked: ['鸡蛋'],
  },
  {
    q: 'How many calories in 100 g of pork?',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['pork', '263'],
    looked: ['猪肉'],
  },
  {
    q: 'How many calories in 100 g of rice?',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['rice', '356'],
    looked: ['大米'],
  },
  {
    q: 'How many calories in pork?',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['263'],
    looked: ['猪肉'],
  },
  {
    q: 'calories in eggs',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['134.5'],
    looked: ['鸡蛋'],
  },
  {
    q: '200克猪肉的热量是多少？',
    tools: ['nutrition_lookup'],
    cards: ['nutrition'],
    has: ['猪肉', '263'],
    looked: ['猪肉'],
  },
  { q: '米饭的热量高不高', tools: ['nutrition_lookup'], has: ['米饭'], looked: ['米饭'] },
  { q: '番茄炒蛋的热量', tools: ['nutrition_lookup'], cards: ['nutrition'], has: ['番茄炒蛋', '每份'] },
  { q: '豆腐的营养', tools: ['nutrition_lookup'], has: ['没有', '不编造'] },
  // Two questions in one: both parts answered.
  {
    q: '冰箱里有什么快过期了？顺便告诉我100克鸡蛋的热量',
    tools: ['fridge_items', 'nutrition_lookup'],
    cards: ['nutrition'],
    has: ['嫩豆腐', '134.5'],
    not: ['快过期了（'],
    looked: ['鸡蛋'],
  },
  {
    q: 'What is expiring soon, and how many calories in 100 g of pork?',
    tools: ['fridge_items', 'nutrition_lookup'],
    cards: ['nutrition'],
    has: ['Due soon', '263'],
    looked: ['猪肉'],
  },
  {
    q: '家里谁有过敏？另外这周晚饭怎么安排？',
    tools: ['household_preferences', 'meal_plan'],
    cards: ['meal_plan'],
    has: ['花生', '3 顿晚饭'],
  },
  {
    q: '今晚能做什么菜？顺便查一下鸡蛋的营养',
    tools: [...READS, 'nutrition_lookup'],
    cards: ['recipe', 'nutrition'],
    has: ['推荐', '134.5'],
    looked: ['鸡蛋'],
  },
  // Requests to change data: declined, with where to do it; no tool called.
  // Requests to change data: declined, with where to do it; only that page's data is read.
  {
    q: '帮我把牛奶从冰箱里删掉',
    tools: ['fridge_items'],
    never: NO_WRITES,
    cards: [],
    has: ['只能查看', '「冰箱」页面', '牛奶 1盒，已过期 1 天'],
    not: ['推荐'],
  },
  {
    q: 'Remove the milk from the fridge',
    tools: ['fridge_items'],
    never: NO_WRITES,
    has: ['only read', 'Fridge page'],
  },
  {
    q: '把周六的晚饭改成红烧肉',
    tools: ['meal_plan'],
    never: NO_WRITES,
    has: ['「本周菜单」页面'],
    not: ['推荐'],
  },
  { q: 'Add a recipe for dumplings to my recipes', tools: [], never: NO_WRITES, has: ['Recipes page'] },
  {
    q: '帮我在过敏里添加芒果',
    tools: ['household_preferences'],
    never: NO_WRITES,
    has: ['「口味与过敏」页面'],
  },
  {
    q: '把鸡蛋加到冰箱里，12个',
    tools: ['fridge_items'],
    never: NO_WRITES,
    has: ['「冰箱」页面', '鸡蛋 10个'],
  },
];
