import { describe, expect, it } from 'vitest';
import { ActionKeys } from '../src/loop/action-keys.js';

describe('ActionKeys (the repeated-action guard’s memory)', () => {
  it('answers like a Map: the first action, later ones, overwrites, unknown keys', () => {
    const keys = new ActionKeys();
    expect(keys.get('a')).toBeUndefined();
    keys.set('a', 1);
    keys.set('b', 2);
    keys.set('c', 3);
    expect([keys.get('a'), keys.get('b'), keys.get('c'), keys.get('d')]).toEqual([1, 2, 3, undefined]);
    keys.set('a', 4);
    keys.set('c', 5);
    expect([keys.get('a'), keys.get('b'), keys.get('c')]).toEqual([4, 2, 5]);
    expect(keys.get('')).toBeUndefined();
  });

  it('keeps answering like a Map past the scanned few (20 keys), overwrites in every tier', () => {
    const keys = new ActionKeys();
    const map = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      keys.set(`k${i}`, i);
      map.set(`k${i}`, i);
    }
    for (const i of [0, 3, 8, 9, 15]) {
      keys.set(`k${i}`, 100 + i);
      map.set(`k${i}`, 100 + i);
    }
    for (let i = 0; i < 22; i++) expect(keys.get(`k${i}`)).toBe(map.get(`k${i}`));
    expect(keys.get('k')).toBeUndefined();
  });
});
