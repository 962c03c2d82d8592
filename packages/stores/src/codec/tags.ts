/**
 * The stored form of a value. Strings, numbers, booleans, null and objects are themselves (an
 * object is a diff against the value it replaces: unchanged keys left out), except negative
 * integers: `-(n + 1)` is the n-th value registered earlier in the run (see `RefTable`).
 * Arrays are always operations, tagged by their first element, so nothing the run wrote can
 * be mistaken for one.
 */
export const TAG = {
  /** `[0, ...items]`: an array, item by item. */
  array: 0,
  /** `[1, n]`: the n-th value registered earlier in the run (written `-(n + 1)` instead: shorter). */
  ref: 1,
  /** `[2]` as an object field: the key was removed. */
  removed: 2,
  /** `[3, keep, keepEnd, ...items]`: the previous array's first `keep` and last `keepEnd` items around new ones. */
  splice: 3,
  /** `[4, ...items]`: an array of the previous one's length, item by item against it. */
  zip: 4,
  /** `[5]` as an item of `zip`: unchanged. */
  same: 5,
  /** `[6, object]`: an object written whole, not against the previous value (its key order changed). */
  whole: 6,
  /**
   * `[7, value]`: a string that is the compact JSON text of `value` (a model's reply), stored
   * as the value, so its parts and what repeats them later can be references.
   */
  jsonText: 7,
  /** `[8, keys, ...rows]`: an array of objects that all have these keys in this order, a row of values each. */
  table: 8,
  /** `[9, n, value]`: the n-th registered value, changed (`value` against it): an object like an earlier one. */
  like: 9,
  /** `[10, n]`: a negative integer of the run (a bare one is a reference). */
  negative: 10,
} as const;
