// @ts-check
/**
 * Family questions for the storage benchmark: every intent the kitchen's demo model knows
 * (what to cook, what expires, the week's plan, allergies, nutrition of a food or a dish) and
 * a few it does not, in Chinese and English, worded the way people ask them.
 */
export const QUESTIONS = [
  '今晚吃什么？',
  '冰箱里有什么能做的菜？',
  '用冰箱里的东西做个晚饭吧',
  '今天午饭做点什么好？',
  '有什么菜谱适合今晚？',
  '哪些食材快过期了？',
  '有什么东西快坏了，要先用掉？',
  '看看冰箱里保质期快到的',
  '这周的菜单是什么？',
  '本周的菜单安排一下',
  '下周做什么菜，帮我安排一下计划',
  '家里谁有过敏？',
  '家里人有什么忌口和饮食偏好？',
  '奶奶不吃什么？',
  '鸡蛋的营养成分是多少？',
  '番茄的热量高不高？',
  '豆腐有多少蛋白质？',
  '一百克猪肉有多少脂肪？',
  '米饭的碳水含量',
  '番茄炒蛋的营养怎么样？',
  '红烧肉热量多少千卡？',
  '你好',
  '帮我记一下明天买牛奶',
  'What can I cook tonight?',
  'What is in the fridge for dinner?',
  'Which items are going to expire soon?',
  'What should I use up first?',
  "What's on the menu this week?",
  'Show me the meal plan for this week',
  'Does anyone in the family have allergies?',
  'Any dietary preferences I should know about?',
  'How many calories in an egg?',
  'Nutrition facts of tomato?',
  'How much protein in tofu?',
  'Hello there',
];

/** The demo users asking (both households, owners and members). */
export const ASKERS = ['xiaojia', 'mama', 'laowang', 'nainai'];
