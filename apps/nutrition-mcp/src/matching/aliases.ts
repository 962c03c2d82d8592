/**
 * What a household name means in IFCT 2017.
 * - `terms`: English name prefixes, in order of preference (`Tomato, ripe` before `Tomato`);
 *   the candidates they find are ranked by the matching rule (`rank-candidates.ts`).
 * - `codes`: a hand-chosen list, in order, where the table has no whole entry and the rule
 *   would have to guess (chicken: cuts only) or the food is under another name (排骨).
 * - `none`: the table has no such food; the lookup says so instead of offering a lookalike.
 */
export type AliasMatch =
  | { readonly terms: readonly string[]; readonly groups?: readonly string[] }
  | { readonly codes: readonly string[] }
  | { readonly none: string };

export interface Alias {
  /** Names people type: Chinese first, then English. Matched after normalization. */
  readonly names: readonly string[];
  readonly match: AliasMatch;
  /** Said alongside the result, where the entry is a stand-in people should know about. */
  readonly note?: string;
}

const RAW_RICE_NOTE = 'IFCT lists uncooked rice only: values are per 100 g raw rice, not cooked.';

export const ALIASES: readonly Alias[] = [
  { names: ['猪肉', 'pork'], match: { terms: ['Pork'] } },
  { names: ['牛肉', 'beef'], match: { terms: ['Beef'] } },
  { names: ['羊肉', 'mutton', 'lamb', 'goat meat'], match: { terms: ['Goat', 'Sheep'] } },
  {
    names: ['鸡肉', 'chicken'],
    match: { codes: ['N003', 'N002', 'N004', 'N001'] },
    note: 'IFCT lists chicken cuts only; skinless breast is taken as the representative.',
  },
  { names: ['鸡蛋', '蛋', 'egg', 'eggs'], match: { terms: ['Egg'], groups: ['Egg and Egg Products'] } },
  { names: ['鸭蛋', 'duck egg', 'duck eggs'], match: { terms: ['Egg, duck'] } },
  // "quial": the table's own spelling.
  { names: ['鹌鹑蛋', 'quail egg', 'quail eggs'], match: { terms: ['Egg, quial'] } },
  {
    names: ['排骨', 'spare ribs', 'pork ribs'],
    match: { codes: ['O049'] },
    note: 'IFCT has no spare ribs; pork chops are the nearest cut.',
  },
  { names: ['猪肝', 'pork liver'], match: { terms: ['Pork, liver'] } },
  { names: ['鸭肉', 'duck'], match: { terms: ['Duck, meat'] } },
  { names: ['豆腐', 'tofu', 'bean curd'], match: { none: 'IFCT 2017 has no tofu entry.' } },
  { names: ['酸奶', 'yogurt', 'yoghurt'], match: { none: 'IFCT 2017 has no yogurt (curd) entry.' } },
  { names: ['番茄', '西红柿', 'tomato'], match: { terms: ['Tomato, ripe', 'Tomato'] } },
  { names: ['土豆', '马铃薯', 'potato'], match: { terms: ['Potato'] } },
  { names: ['红薯', '地瓜', 'sweet potato'], match: { terms: ['Sweet potato'] } },
  { names: ['白菜', '大白菜', 'chinese cabbage', 'napa cabbage'], match: { terms: ['Cabbage, Chinese'] } },
  { names: ['卷心菜', '包菜', '圆白菜', 'cabbage'], match: { terms: ['Cabbage, green', 'Cabbage'] } },
  { names: ['菠菜', 'spinach'], match: { terms: ['Spinach'] } },
  { names: ['生菜', 'lettuce'], match: { terms: ['Lettuce'] } },
  { names: ['芹菜', 'celery'], match: { terms: ['Celery stalk'] } },
  { names: ['花菜', '菜花', 'cauliflower'], match: { terms: ['Cauliflower'] } },
  { names: ['米饭'], match: { terms: ['Rice, raw, milled'] }, note: RAW_RICE_NOTE },
  { names: ['大米', '米', 'rice'], match: { terms: ['Rice, raw, milled', 'Rice'] }, note: RAW_RICE_NOTE },
  { names: ['面粉', 'flour', 'wheat flour'], match: { terms: ['Wheat flour, refined', 'Wheat flour'] } },
  { names: ['玉米', 'corn', 'sweet corn'], match: { terms: ['Maize, tender, sweet', 'Maize'] } },
  { names: ['牛奶', 'milk', 'cow milk'], match: { terms: ['Milk, whole, Cow', 'Milk'] } },
  { names: ['黄瓜', 'cucumber'], match: { terms: ['Cucumber, green', 'Cucumber'] } },
  {
    names: ['茄子', 'eggplant', 'aubergine', 'brinjal'],
    match: { terms: ['Brinjal - all varieties', 'Brinjal'] },
  },
  {
    names: ['青椒', '甜椒', 'green pepper', 'bell pepper', 'capsicum'],
    match: { terms: ['Capsicum, green', 'Capsicum'] },
  },
  { names: ['辣椒', 'chilli', 'chili'], match: { terms: ['Chillies, green - all varieties', 'Chillies'] } },
  { names: ['胡萝卜', 'carrot'], match: { terms: ['Carrot'] } },
  { names: ['洋葱', 'onion'], match: { terms: ['Onion'] } },
  { names: ['大蒜', '蒜', 'garlic'], match: { terms: ['Garlic'] } },
  { names: ['生姜', '姜', 'ginger'], match: { terms: ['Ginger, fresh'] } },
  { names: ['南瓜', 'pumpkin'], match: { terms: ['Pumpkin'] } },
  {
    names: ['蘑菇', 'mushroom', 'button mushroom'],
    match: { terms: ['Button mushroom, fresh', 'Mushroom'] },
  },
  { names: ['香菇', 'shiitake'], match: { terms: ['Shiitake mushroom'] } },
  { names: ['豌豆', 'peas', 'green peas'], match: { terms: ['Peas, fresh', 'Peas'] } },
  { names: ['黄豆', '大豆', 'soybean', 'soya bean'], match: { terms: ['Soya bean'] } },
  { names: ['绿豆', 'mung bean', 'green gram'], match: { terms: ['Green gram, whole', 'Green gram'] } },
  { names: ['花生', 'peanut', 'groundnut'], match: { terms: ['Ground nut'] } },
  { names: ['花生油', 'peanut oil', 'groundnut oil'], match: { terms: ['Groundnut oil'] } },
  { names: ['芝麻', 'sesame'], match: { terms: ['Gingelly seeds'] } },
  { names: ['核桃', 'walnut'], match: { terms: ['Walnut'] } },
  { names: ['虾', 'shrimp', 'prawn', 'prawns'], match: { terms: ['Prawns', 'Tiger prawns'] } },
  { names: ['螃蟹', '蟹', 'crab'], match: { terms: ['Crab'] } },
  {
    names: ['鱼', 'fish'],
    match: { terms: ['Silver carp', 'Rohu', 'Catla'] },
    note: 'A generic fish is taken as a carp (silver carp, 鲢鱼), the family of most household fish in China.',
  },
  { names: ['鲢鱼', 'silver carp'], match: { terms: ['Silver carp'] } },
  { names: ['三文鱼', 'salmon'], match: { terms: ['Salmon'] } },
  { names: ['苹果', 'apple'], match: { terms: ['Apple'] } },
  { names: ['香蕉', 'banana'], match: { terms: ['Banana'] } },
  { names: ['橙子', '橙', 'orange'], match: { terms: ['Orange, pulp'] } },
];
