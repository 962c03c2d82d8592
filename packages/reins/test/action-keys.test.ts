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
});
