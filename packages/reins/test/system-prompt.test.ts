import { describe, expect, it } from 'vitest';
import { systemPrompts } from '../src/loop/system-prompt.js';
import type { ToolSpec } from '../src/model.js';

const schema = { type: 'object', properties: { q: { type: 'string' } } };
const spec = (name: string, description = `${name} things`, inputSchema = schema): ToolSpec => ({
  name,
  description,
  inputSchema,
});

describe('systemPrompts (shared by runs of one configuration)', () => {
  it('hands the same prompts to runs of the same tools, step limit and instructions', () => {
    const first = systemPrompts([spec('find'), spec('add')], 5, 'Be brief.');
    const again = systemPrompts([spec('find'), spec('add')], 5, 'Be brief.');
    expect(again).toBe(first);
    expect(first.withTools.content).toContain('- find: find things');
    expect(first.lastStep.content).not.toContain('- find:');
  });

  it('builds new prompts when anything they say differs', () => {
    const base = systemPrompts([spec('find'), spec('add')], 5, 'Be brief.');
    const variants = [
      systemPrompts([spec('find'), spec('add')], 6, 'Be brief.'),
      systemPrompts([spec('find'), spec('add')], 5, 'Be thorough.'),
      systemPrompts([spec('find'), spec('add')], 5, undefined),
      systemPrompts([spec('find', 'look things up'), spec('add')], 5, 'Be brief.'),
      systemPrompts([spec('find'), spec('sum')], 5, 'Be brief.'),
      systemPrompts([spec('add'), spec('find')], 5, 'Be brief.'),
      systemPrompts([spec('find')], 5, 'Be brief.'),
      systemPrompts([spec('find'), spec('add', 'add things', { ...schema })], 5, 'Be brief.'),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1); // none reused another's
    expect(variants[0]?.withTools.content).toContain('at most 6 steps');
    expect(variants[1]?.withTools.content).toContain('Be thorough.');
    expect(variants[3]?.withTools.content).toContain('- find: look things up');
    expect(variants[4]?.withTools.content).toContain('- sum: sum things');
    expect(variants[6]?.withTools.content.match(/^- \w+:/gm)).toEqual(['- find:']);
  });
});
