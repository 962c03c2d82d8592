import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { getFoodInput, searchFoodsInput } from '../src/mcp/tool-schemas.js';
import { parseInput } from '../src/mcp/tool-results.js';

const errorOf = (result: { content: unknown }) =>
  JSON.parse((result.content as { text: string }[])[0]?.text ?? 'null') as {
    error: { code: string; message: string };
  };

describe('tool inputs', () => {
  it('accept what the tools document', () => {
    expect(searchFoodsInput.safeParse({ query: '猪肉' }).success).toBe(true);
    expect(searchFoodsInput.safeParse({ query: 'x'.repeat(100), limit: 20 }).success).toBe(true);
    expect(getFoodInput.safeParse({ code: 'O048' }).success).toBe(true);
    expect(getFoodInput.safeParse({ name: '鸡蛋' }).success).toBe(true);
  });

  it.each([
    ['an unknown key (a model-invented tenant id)', searchFoodsInput, { query: '猪肉', space_id: 's2' }],
    ['an oversize query', searchFoodsInput, { query: 'x'.repeat(101) }],
    ['an empty query', searchFoodsInput, { query: '' }],
    ['a blank query', searchFoodsInput, { query: ' \t ' }],
    ['a limit of 0', searchFoodsInput, { query: 'a', limit: 0 }],
    ['a fractional limit', searchFoodsInput, { query: 'a', limit: 1.5 }],
    ['a limit as a string', searchFoodsInput, { query: 'a', limit: '3' }],
    ['no arguments', searchFoodsInput, undefined],
    ['both code and name', getFoodInput, { code: 'O048', name: 'pork' }],
    ['neither code nor name', getFoodInput, {}],
    ['a code that is not an IFCT code', getFoodInput, { code: 'O048; DROP' }],
    ['an unknown key on get_food', getFoodInput, { code: 'O048', per: 'serving' }],
  ] satisfies [string, z.ZodType, unknown][])(
    'refuse %s with INVALID_PARAMETER, naming the problem',
    (_what, schema: z.ZodType, args) => {
      const parsed = parseInput(schema, args);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.result.isError).toBe(true);
      const { error } = errorOf(parsed.result);
      expect(error.code).toBe('INVALID_PARAMETER');
      expect(error.message.length).toBeGreaterThan(0);
    },
  );

  it('names the unknown key in the message', () => {
    const parsed = parseInput(searchFoodsInput, { query: '猪肉', space_id: 's2' });
    if (parsed.ok) throw new Error('accepted');
    expect(errorOf(parsed.result).error.message).toContain('space_id');
  });
});
