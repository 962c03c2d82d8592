import { normalizeName } from './ingredient-names.js';

/**
 * English food names as families type them, to the Chinese names the household's recipes and
 * the nutrition table's aliases use (pork → 猪肉, rice → 大米). Used on the nutrition lookup
 * path for every model, so "calories in pork" and "猪肉的热量" find the same entry.
 */
const ENGLISH_TO_CHINESE: Readonly<Record<string, string>> = {
  pork: '猪肉',
  'pork belly': '五花肉',
  'minced pork': '肉末',
  'ground pork': '肉末',
  'pork ribs': '排骨',
  'spare ribs': '排骨',
  beef: '牛肉',
  chicken: '鸡肉',
  'chicken wings': '鸡翅',
  'chicken wing': '鸡翅',
  mutton: '羊肉',
  lamb: '羊肉',
  fish: '鱼',
  shrimp: '虾',
  prawns: '虾',
  egg: '鸡蛋',
  eggs: '鸡蛋',
  'chicken egg': '鸡蛋',
  'duck egg': '鸭蛋',
  'duck eggs': '鸭蛋',
  'quail egg': '鹌鹑蛋',
  'quail eggs': '鹌鹑蛋',
  rice: '大米',
  'cooked rice': '米饭',
  'steamed rice': '米饭',
  noodles: '面条',
  flour: '面粉',
  tofu: '豆腐',
  milk: '牛奶',
  tomato: '番茄',
  tomatoes: '番茄',
  potato: '土豆',
  potatoes: '土豆',
  'sweet potato': '红薯',
  broccoli: '西兰花',
  spinach: '菠菜',
  cabbage: '卷心菜', // the table's 白菜 is Chinese cabbage
  'chinese cabbage': '大白菜',
  carrot: '胡萝卜',
  carrots: '胡萝卜',
  cucumber: '黄瓜',
  eggplant: '茄子',
  onion: '洋葱',
  garlic: '大蒜',
  ginger: '姜',
  'green pepper': '青椒',
  corn: '玉米',
  peanut: '花生',
  peanuts: '花生',
  apple: '苹果',
  banana: '香蕉',
};

/** The Chinese name of an English food name (case and width ignored), or undefined. */
export function chineseFoodName(food: string): string | undefined {
  const name = normalizeName(food).replace(/\s+/g, ' ');
  const known = (key: string): string | undefined =>
    Object.hasOwn(ENGLISH_TO_CHINESE, key) ? ENGLISH_TO_CHINESE[key] : undefined; // not 'constructor' &c.
  return known(name) ?? known(name.replace(/^(?:an?|the|some) /, ''));
}
