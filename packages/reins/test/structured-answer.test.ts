import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineAnswer,
  defineTool,
  parseDecision,
  runAgent,
  runPlanAgent,
  type MessageEvent,
  type RunEvent,
} from 'reins';
import { scriptModel } from 'reins/testing';
import type { ChatMessage, Model } from 'reins';

// A recipe card answer whose `source` the code stamps from the observations, never the model.
const cards = defineAnswer({
  schema: z.object({
    reply: z.string().min(1),
    cards: z.array(z.object({ title: z.string(), kcal: z.number().optional(), source: z.string() })),
  }),
  text: (data) => data.reply,
  finalize: (data, { observations }) => {
    const measured = new Map<string, number>();
    for (const o of observations) {
      if (o.status === 'ok') {
        const r = o.result as { title: string; kcal: number };
        measured.set(r.title, r.kcal);
      }
    }
    return {
      ...data,
      cards: data.cards.map((c) => {
        const kcal = measured.get(c.title);
        return kcal === undefined
          ? { title: c.title, source: 'llm_estimate' }
          : { ...c, kcal, source: 'tool' };
      }),
    };
  },
});

const lookup = defineTool({
  name: 'lookup',
  description: 'kcal of a dish',
  input: z.object({ title: z.string() }),
  output: z.object({ title: z.string(), kcal: z.number() }),
  readOnly: true,
  run: async ({ title }) => ({ title, kcal: 120 }),
});

async function answerOf(replies: string[], answer = cards) {
  const run = runAgent({ query: 'q', model: scriptModel(replies), tools: [lookup], answer });
  const record = await run.result;
  const message = run.events.find((e): e is MessageEvent => e.type === 'message');
  if (message === undefined) throw new Error('no message');
  return { record, message };
}

describe('structured answers (AnswerFormat)', () => {
  it('parses a "final" object: data on the message and the record, text from the format', async () => {
    const { message, record } = await answerOf([
      '{"action":"lookup","input":{"title":"番茄炒蛋"}}',
      '{"thought":"done","final":{"reply":"试试番茄炒蛋","cards":[{"title":"番茄炒蛋","kcal":999,"source":"verified"}]}}',
    ]);
    expect(message.format).toBe('structured');
    expect(message.text).toBe('试试番茄炒蛋');
    // finalize overwrote what the model claimed: the value and the label come from the tool.
    expect(message.data).toEqual({
      reply: '试试番茄炒蛋',
      cards: [{ title: '番茄炒蛋', kcal: 120, source: 'tool' }],
    });
    expect(record.answer_data).toEqual(message.data);
    expect(record.final_answer).toBe('试试番茄炒蛋');
  });

  it('a card with no observation behind it is labeled by code, whatever the model wrote', async () => {
    const { message } = await answerOf([
      '{"final":{"reply":"r","cards":[{"title":"红烧肉","kcal":500,"source":"mcp_exact"}]}}',
    ]);
    expect(message.data).toEqual({ reply: 'r', cards: [{ title: '红烧肉', source: 'llm_estimate' }] });
  });

  it('final text that is the answer JSON (e.g. a native-tools model) is parsed with one repair', async () => {
    // Not a decision at all (no "final" key): the text itself is checked against the answer schema.
    const { message } = await answerOf([
      "Here: ```json\n{'reply': '好', 'cards': [{'title': 'x', 'source': 's'},]}\n```",
    ]);
    expect(message.format).toBe('structured');
    expect(message.text).toBe('好');
  });

  it('an answer that fails the schema is the raw text, labeled, never blank', async () => {
    const { message, record } = await answerOf(['{"final":{"reply":"","cards":"none"}}']);
    expect(message.format).toBe('raw');
    expect(message.data).toBeUndefined();
    expect(message.text).toContain('"cards":"none"');
    expect(record.answer_data).toBeUndefined();
    const prose = await answerOf(['好的，我推荐番茄炒蛋。']);
    expect(prose.message).toMatchObject({ format: 'raw', text: '好的，我推荐番茄炒蛋。' });
    const plainFinal = await answerOf(['{"final":"just text"}']);
    expect(plainFinal.message).toMatchObject({ format: 'raw', text: 'just text' });
  });

  it('the system prompt describes the answer object from its schema', async () => {
    let seen: readonly ChatMessage[] = [];
    const model: Model = {
      name: 'spy',
      call: async (request) => {
        seen = request.messages;
        return {
          ok: true,
          text: '{"final":{"reply":"r","cards":[]}}',
          usage: { inputTokens: 1, outputTokens: 1 },
        };
      },
    };
    const run = runAgent({ query: 'q', model, tools: [], answer: cards });
    await run.result;
    const system = seen.find((m) => m.role === 'system');
    expect(system?.content).toContain('"final" object must match this JSON Schema');
    expect(system?.content).toContain('"cards"');
  });

  it('without an answer format, a "final" object is shown as its JSON and no data is attached', async () => {
    const run = runAgent({ query: 'q', model: scriptModel(['{"final":{"a":1}}']), tools: [] });
    await run.result;
    const message = run.events.find((e: RunEvent): e is MessageEvent => e.type === 'message');
    expect(message).toMatchObject({ format: 'structured', text: '{"a":1}' });
    expect(message?.data).toBeUndefined();
  });

  it('parseDecision keeps a final object as data and refuses an array', () => {
    const parsed = parseDecision('{"final":{"reply":"x"}}');
    expect(parsed.ok && parsed.value).toMatchObject({ kind: 'final', data: { reply: 'x' } });
    expect(parseDecision('{"final":["x"]}').ok).toBe(false);
  });
});

describe('structured answers in plan-and-execute runs', () => {
  const planReply = JSON.stringify({
    thought: 'plan',
    steps: [{ id: 's1', action: 'lookup', input: { title: '番茄炒蛋' }, dependsOn: [] }],
  });
  it('the responder is told the format; the answer is checked and stamped like a ReAct one', async () => {
    const seen: string[] = [];
    const replies = [
      planReply,
      '{"final":{"reply":"番茄炒蛋","cards":[{"title":"番茄炒蛋","kcal":1,"source":"verified"}]}}',
    ];
    const model: Model = {
      name: 'spy',
      call: async (request) => {
        seen.push(request.messages.map((m) => m.content).join('\n'));
        const text = replies.shift() ?? '';
        return { ok: true, text, usage: { inputTokens: 1, outputTokens: 1 } };
      },
    };
    const run = runPlanAgent({ query: 'q', model, tools: [lookup], answer: cards });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(seen.at(-1)).toContain('"final" object must match this JSON Schema');
    expect(seen[0]).not.toContain('"final" object must match'); // the planner writes plans
    expect(record.answer_data).toEqual({
      reply: '番茄炒蛋',
      cards: [{ title: '番茄炒蛋', kcal: 120, source: 'tool' }],
    });
  });

  it('an answer that fails the format is raw, labeled', async () => {
    const run = runPlanAgent({
      query: 'q',
      model: scriptModel([planReply, '{"final":"plain words"}']),
      tools: [lookup],
      answer: cards,
    });
    const record = await run.result;
    expect(record).toMatchObject({ format: 'raw', final_answer: 'plain words' });
    expect(record.answer_data).toBeUndefined();
  });
});
