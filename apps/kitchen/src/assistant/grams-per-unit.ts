import { normalizeName } from '../domain/ingredient-names.js';

/**
 * How many grams a recipe quantity is: our rules for `mcp_derived` nutrition (documented in
 * docs/kitchen.md). Weights and volumes convert exactly (1 ml counts as 1 g); counts need a typical
 * weight for the thing counted, and a count we have no rule for is not guessed — the
 * ingredient is left out of the sum and listed as such.
 */
const BY_UNIT: Readonly<Record<string, number>> = {
  g: 1,
  克: 1,
  kg: 1000,
  千克: 1000,
  公斤: 1000,
  斤: 500,
  两: 50,
  ml: 1,
  毫升: 1,
  l: 1000,
  升: 1000,
  汤匙: 15,
  大勺: 15,
  勺: 15,
  茶匙: 5,
  小勺: 5,
};

/** [unit, name fragment, grams of one]: typical edible weights of one piece. First match wins. */
const BY_PIECE: readonly (readonly [string, string, number])[] = [
  ['个', '鸡蛋', 50],
  ['个', '鸭蛋', 60],
  ['个', '鹌鹑蛋', 10],
  ['个', '番茄', 150],
  ['个', '西红柿', 150],
  ['个', '土豆', 150],
  ['个', '青椒', 100],
  ['个', '洋葱', 150],
  ['个', '鸡翅', 40],
  ['只', '鸡翅', 40],
  ['个', '干辣椒', 1],
  ['个', '八角', 1],
  ['盒', '豆腐', 350],
  ['块', '豆腐', 300],
  ['颗', '西兰花', 300],
  ['颗', '白菜', 1000],
  ['根', '葱', 10],
  ['片', '姜', 3],
  ['块', '姜', 30],
  ['瓣', '蒜', 5],
  ['头', '蒜', 50],
  ['条', '鱼', 500],
];

/** Grams of `quantity` `unit` of `name`, or null when no rule covers it. */
export function gramsOf(name: string, quantity: number | null, unit: string | null): number | null {
  if (quantity === null || !Number.isFinite(quantity) || quantity <= 0) return null;
  const u = normalizeName(unit ?? '');
  const perUnit = Object.hasOwn(BY_UNIT, u) ? BY_UNIT[u] : undefined; // not 'constructor' &c.
  if (perUnit !== undefined) return quantity * perUnit;
  const n = normalizeName(name);
  const piece = BY_PIECE.find(([pieceUnit, fragment]) => pieceUnit === u && n.includes(fragment));
  return piece === undefined ? null : quantity * piece[2];
}
