/* eslint-disable @typescript-eslint/no-explicit-any -- untyped wire JSON of a fake provider, checked field by field below */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, runAgent } from 'reins';
import { anthropic } from '@reins/models';

describe('review probes: anthropic wire', () => {
  it('N1: every request of a native multi-step run is a valid Messages turn structure', async () => {
    const bodies: any[] = [];
    const replies = [
      {
        content: [
          { type: 'text', text: '\n\n' },
          { type: 'tool_use', id: 'toolu_a', name: 'add', input: { a: 1, b: 2 } },
          { type: 'tool_use', id: 'toolu_b', name: 'add', input: { a: 3, b: 4 } },
        ],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      {
        content: [{ type: 'text', text: '{"thought":"t","action":"add","input":{"a":5,"b":6}}' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      {
        content: [{ type: 'text', text: '{"thought":"t","final":"10"}' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    ];
    const post = async (_url: string, _h: unknown, body: string) => {
      bodies.push(JSON.parse(body));
      const text = JSON.stringify(replies[bodies.length - 1]);
      return { status: 200, header: () => null, body: (async function* () {})(), text: async () => text };
    };
    const add = defineTool({
      name: 'add',
      description: 'add',
      readOnly: true,
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.object({ sum: z.number() }),
      run: ({ a, b }) => ({ sum: a + b }),
    });
    const record = await runAgent({
      query: 'q',
      model: anthropic({ model: 'c', apiKey: 'k', post: post as never }),
      tools: [add],
      limits: { maxSteps: 4 },
    }).result;
    expect(record.status).toBe('success');
    for (const b of bodies) {
      b.messages.forEach((m: any, i: number) => {
        expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant');
        if (Array.isArray(m.content))
          for (const block of m.content) {
            if (block.type === 'text') expect(block.text.trim()).not.toBe(''); // API: text blocks must contain non-whitespace text
          }
        const prev = b.messages[i - 1];
        const uses = Array.isArray(prev?.content)
          ? prev.content.filter((x: any) => x.type === 'tool_use').map((x: any) => x.id)
          : [];
        if (uses.length > 0) {
          const results = (m.content as any[])
            .slice(0, uses.length)
            .map((x: any) => x.type === 'tool_result' && x.tool_use_id);
          expect(results).toEqual(uses);
        }
      });
    }
  });
});
