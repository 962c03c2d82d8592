import { describe, expect, it } from 'vitest';
import { AUTO_MAX_STEPS, AUTO_MIN_STEPS, autoMaxSteps } from 'reins';

// The `maxSteps: 'auto'` estimator: a table of queries and the limit each gets, and why.
const TABLE: readonly [query: string, chosen: number, reasonHas: readonly string[]][] = [
  // A short remark asks for nothing: the minimum.
  ['你好', 3, ['no ask', 'bounded to 3..12']],
  ['Thanks!', 3, ['no ask']],
  // One ask: about 1.5 lookups (its data and often the user's context), rounded up, + answer + margin.
  ['鸡蛋的营养成分', 4, ['1 ask', '2 for asks', '= 4']],
  ['How many calories in 100 g of pork?', 4, []],
  ['What can I cook tonight?', 4, ['2 for asks']],
  ['今晚能做什么菜？', 4, []],
  // A span of days adds a round.
  ['这周的菜单怎么安排？', 5, ['span', '这周']],
  ["Plan this week's dinners", 5, ['this week']],
  // Two asks: a joiner ("顺便", "and how") or two question marks, counted once.
  ['冰箱里有什么快过期了？顺便告诉我100克鸡蛋的热量', 5, ['2 asks', '顺便']],
  ['What is expiring soon, and how many calories in 100 g of pork?', 5, ['2 asks', 'and how']],
  ['家里谁有过敏？另外这周晚饭怎么安排？', 6, ['2 asks', '2 question marks', '另外', '这周']],
  // List separators: each item is another lookup.
  ['鸡蛋、番茄、牛奶各100克的热量分别是多少？', 7, ['3 asks', '2 list separator']],
  // A range of days counts twice; spans add at most 2.
  ['下周一到周五的午饭和晚饭怎么安排？孩子不吃辣，老人要低盐', 6, ['下周一到周五']],
  ['分析近3个月销售趋势', 6, ['3 span(s)', '近3个月', '2 span']],
];

describe('autoMaxSteps', () => {
  it.each(TABLE)('%s → %i', (query, chosen, reasonHas) => {
    const auto = autoMaxSteps(query);
    expect(auto.chosen).toBe(chosen);
    for (const part of reasonHas) expect(auto.reason).toContain(part);
  });

  it('stays within 3..12, whatever the query', () => {
    expect(autoMaxSteps('').chosen).toBe(AUTO_MIN_STEPS);
    const huge = Array.from({ length: 40 }, (_, i) => `第${i}个问题是什么？顺便查一下、再算一下`).join('');
    const auto = autoMaxSteps(huge);
    expect(auto.chosen).toBe(AUTO_MAX_STEPS);
    expect(auto.reason).toContain(`bounded to ${AUTO_MIN_STEPS}..${AUTO_MAX_STEPS}`);
  });

  it('a lower ceiling bounds it (never below 3)', () => {
    expect(autoMaxSteps('家里谁有过敏？另外这周晚饭怎么安排？', 4).chosen).toBe(4);
    expect(autoMaxSteps('家里谁有过敏？另外这周晚饭怎么安排？', 1).chosen).toBe(3);
  });

  it('counts a Chinese question like the same question in English (the seed counted characters)', () => {
    const pairs: [string, string][] = [
      [
        '帮我看看冰箱里有什么，推荐两道菜，再算一下这两道菜的热量',
        'Check the fridge, suggest two dishes for tonight, and then tell me the calories of each',
      ],
      ['今晚能做什么菜？', 'What can I cook tonight?'],
    ];
    for (const [zh, en] of pairs) expect(autoMaxSteps(zh).chosen).toBe(autoMaxSteps(en).chosen);
    // The seed's len // 20 gives the Chinese one 3 and the English one 4.
    const seed = (q: string): number => Math.min(12, Math.max(3, Math.floor(q.length / 20)));
    expect(seed(pairs[0]![0])).toBeLessThan(seed(pairs[0]![1]));
  });

  it('is a pure function of the query', () => {
    const q = '冰箱里有什么快过期了？顺便告诉我100克鸡蛋的热量';
    expect(autoMaxSteps(q)).toEqual(autoMaxSteps(q));
  });
});
