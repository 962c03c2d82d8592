/**
 * Ingredient names as people type them: 番茄 or 西红柿, 土豆 or 马铃薯. A name matches an
 * ingredient when the ingredient's name contains the name or one of its aliases (so 豆腐
 * finds 嫩豆腐 and 葱 finds 葱花). Broader words list the cuts they cover (猪肉 → 五花肉).
 */
const SYNONYMS: readonly (readonly string[])[] = [
  ['番茄', '西红柿'],
  ['土豆', '马铃薯', '洋芋'],
  ['西兰花', '西蓝花', '青花菜'],
  ['鸡蛋', '鸡子'],
  ['青椒', '柿子椒', '菜椒'],
  ['香菜', '芫荽'],
  ['红薯', '地瓜', '番薯'],
  ['玉米', '苞米'],
  ['花生', '落花生'],
];

const BROADER: Readonly<Record<string, readonly string[]>> = {
  猪肉: ['五花肉', '排骨', '里脊', '肉末', '猪蹄', '肉丝'],
  鸡肉: ['鸡翅', '鸡腿', '鸡胸', '鸡块'],
  牛肉: ['牛腩', '牛里脊', '牛肉末'],
  辣椒: ['干辣椒', '小米辣', '辣椒面'],
  蛋: ['鸡蛋', '鸭蛋', '鹌鹑蛋'],
};

/** NFKC (full-width → half-width), trimmed, lower case: the form names are compared in. */
export function normalizeName(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase();
}

/** The patterns a searched-for name stands for, itself first. */
export function namePatterns(name: string): string[] {
  const base = normalizeName(name);
  const patterns = new Set([base]);
  for (const group of SYNONYMS) if (group.includes(base)) group.forEach((g) => patterns.add(g));
  for (const narrower of BROADER[base] ?? []) patterns.add(narrower);
  return [...patterns];
}

export function nameMatches(ingredient: string, patterns: readonly string[]): boolean {
  const normalized = normalizeName(ingredient);
  return patterns.some((p) => normalized.includes(p));
}

/**
 * The broad word a cut belongs to (五花肉 → 猪肉, 猪里脊 → 猪肉), or undefined when the name holds
 * no listed cut. A cut whose name also holds a broad word is that word's (牛肉末 → 牛肉, 鸡肉丝 →
 * 鸡肉, though 肉末 and 肉丝 are pork cuts); otherwise the longest cut decides (牛里脊 → 牛肉,
 * not 里脊 → 猪肉).
 */
export function broaderName(name: string): string | undefined {
  const normalized = normalizeName(name);
  if (Object.hasOwn(BROADER, normalized)) return undefined;
  let byCut: string | undefined;
  let longest = 0;
  for (const [broad, cuts] of Object.entries(BROADER)) {
    for (const cut of cuts) {
      if (cut.length > longest && normalized.includes(cut)) {
        byCut = broad;
        longest = cut.length;
      }
    }
  }
  if (byCut === undefined) return undefined;
  const named = Object.keys(BROADER).filter((broad) => normalized.includes(broad));
  return named.sort((a, b) => b.length - a.length)[0] ?? byCut;
}

/**
 * Every `[name, pattern]` pair that `namePatterns` adds beyond the name itself (synonyms and the
 * cuts of a broad word), for SQL that matches stored names without a round trip per name.
 */
export function aliasPairs(): [string, string][] {
  const pairs: [string, string][] = [];
  for (const group of SYNONYMS)
    for (const name of group) for (const other of group) if (other !== name) pairs.push([name, other]);
  for (const [broad, cuts] of Object.entries(BROADER)) for (const cut of cuts) pairs.push([broad, cut]);
  return pairs;
}
