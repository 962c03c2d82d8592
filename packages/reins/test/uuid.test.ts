import { describe, expect, it } from 'vitest';
import { uuidV4 } from '../src/util/deps.js';

describe('uuidV4', () => {
  it('gives RFC 4122 version 4 ids, all different, across refills of its random pool', () => {
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const seen = new Set<string>();
    const ids = 4096 * 2 + 10; // the pool holds 4,096 ids: this crosses two refills
    for (let i = 0; i < ids; i++) {
      const id = uuidV4();
      expect(id).toMatch(v4);
      seen.add(id);
    }
    expect(seen.size).toBe(ids);
  });

  it('uses every hex digit in every free position (no digit stuck by the encoding)', () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...uuidV4()].forEach((char, at) => digits[at]?.add(char));
    const free = [...Array(36).keys()].filter((at) => ![8, 13, 14, 18, 19, 23].includes(at));
    for (const at of free) expect({ at, count: digits[at]?.size }).toEqual({ at, count: 16 });
    expect(digits[14]).toEqual(new Set(['4']));
    expect([...(digits[19] ?? [])].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});
