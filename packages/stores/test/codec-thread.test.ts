import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from 'reins';
import { PromptTexts, RunCodec } from '../src/codec/index.js';
import { plainJson } from '../src/codec/plain-json.js';
import { localCodecHost, type CodecHost } from '../src/codec-host.js';
import { threadCodecHost } from '../src/codec-thread.js';

const T0 = 1_796_137_877_768;
const SYSTEM = `你是小贾厨房的助手。${'只根据工具给的数据回答。'.repeat(60)}`; // long: stored apart from the second run on

/** A reason step whose kept prompt starts with the long system message. */
const reason = (index: number, user: string) => ({
  type: 'step',
  phase: 'reason',
  index,
  prompt: {
    parts: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: user },
    ],
  },
});

/** A run's events, with what JSON treats specially: `undefined`, -0, NaN, a Date, a `__proto__` key, a lone surrogate. */
function eventsOf(runId: string): RunEvent[] {
  const withProto = JSON.parse(
    '{"__proto__": {"polluted": true}, "items": ["番茄", "\\ud800鸡蛋"]}',
  ) as unknown;
  const raw: Record<string, unknown>[] = [
    { type: 'start', query: '今晚吃什么？', agent: 'kitchen', note: undefined },
    { ...reason(1, '今晚吃什么？'), durationMs: -0 },
    {
      type: 'step',
      phase: 'act',
      index: 1,
      tool: 'fridge_items',
      input: { limit: 5 },
      started: new Date(T0),
    },
    {
      type: 'step',
      phase: 'observe',
      index: 1,
      observation: { tool: 'fridge_items', status: 'ok', result: withProto, score: Number.NaN },
    },
    reason(2, '还有呢？'),
    { type: 'message', text: '番茄炒蛋。' },
    { type: 'done', status: 'success', steps: 2 },
  ];
  return raw.map((event, seq) => ({ ...event, runId, seq, at: T0 + seq * 1.5 }) as unknown as RunEvent);
}

const hosts: CodecHost[] = [];
const made = (host: CodecHost): CodecHost => (hosts.push(host), host);
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

describe('threadCodecHost: the codec in a worker thread', () => {
  it('gives exactly the bodies and texts the codec gives in this thread, run after run', async () => {
    const local = made(localCodecHost(new PromptTexts(), 100));
    const thread = made(threadCodecHost(new PromptTexts(), 100));
    for (const runId of ['run-a', 'run-b', 'run-c']) {
      const events = eventsOf(runId);
      for (const host of [local, thread]) host.start(runId);
      // In uneven batches, as appends come.
      for (const [from, to] of [
        [0, 1],
        [1, 4],
        [4, 7],
      ] as const) {
        const batch = events.slice(from, to);
        const [here, there] = await Promise.all([local.encode(runId, batch), thread.encode(runId, batch)]);
        expect(there.bodies).toEqual(here.bodies);
        expect([...there.usedTexts]).toEqual([...here.usedTexts]);
        expect(thread.count(runId)).toBe(to);
      }
    }
    // From the second run on, the long system prompt is stored apart: a reference in the bodies.
    const third = await (async () => {
      const host = made(threadCodecHost(new PromptTexts(), 100));
      const texts = new PromptTexts();
      const bodies: string[] = [];
      for (const runId of ['x-1', 'x-2']) {
        host.start(runId);
        const encoded = await host.encode(runId, eventsOf(runId));
        for (const [hash, json] of encoded.usedTexts) texts.hold(hash, json);
        bodies.push(...encoded.bodies.map((body) => `${runId}\n${body}`));
      }
      return { texts, bodies };
    })();
    expect(third.bodies.some((body) => body.startsWith('x-2') && body.includes('reins-text:'))).toBe(true);
    // And they decode to the events' JSON, exactly.
    const decoder = new RunCodec(third.texts);
    const x2 = third.bodies.filter((b) => b.startsWith('x-2\n')).map((b) => b.slice(4));
    const decoded = x2.map((body, seq) => decoder.decode(body, 'x-2', seq));
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(eventsOf('x-2').map((e) => plainJson(e))));
  });

  it('resumes a run from its stored bodies (and the texts they refer to) and goes on as this thread would', async () => {
    const texts = new PromptTexts();
    const writer = made(localCodecHost(texts, 100));
    for (const runId of ['r-1', 'r-2']) writer.start(runId);
    await writer.encode('r-1', eventsOf('r-1'));
    const stored = await writer.encode('r-2', eventsOf('r-2').slice(0, 5)); // refers to the stored prompt
    expect(stored.bodies.some((body) => body.includes('reins-text:'))).toBe(true);
    // A restarted process: it decodes the rows here, and hands the state to its thread.
    const reader = new PromptTexts();
    for (const [hash, json] of stored.usedTexts) reader.hold(hash, json);
    const codec = new RunCodec(reader);
    stored.bodies.forEach((body, seq) => codec.decode(body, 'r-2', seq));
    const thread = made(threadCodecHost(reader, 100));
    thread.resume('r-2', codec, stored.bodies);
    expect(thread.count('r-2')).toBe(5);
    const rest = eventsOf('r-2').slice(5);
    const there = await thread.encode('r-2', rest);
    const here = await writer.encode('r-2', rest);
    expect(there.bodies).toEqual(here.bodies);
  });

  it('a run evicted while its encode is under way is not held afterwards; its next encode is refused', async () => {
    const thread = made(threadCodecHost(new PromptTexts(), 1));
    thread.start('old');
    const encoding = thread.encode('old', eventsOf('old').slice(0, 2));
    thread.start('new'); // room for one: 'old' is dropped, here and in the thread
    await expect(encoding).resolves.toMatchObject({ bodies: [expect.any(String), expect.any(String)] });
    expect(thread.count('old')).toBeUndefined();
    expect(thread.count('new')).toBe(0);
    await expect(thread.encode('old', eventsOf('old').slice(2, 3))).rejects.toThrow(
      /no state held for run old/,
    );
    await expect(thread.encode('new', eventsOf('new').slice(0, 1))).resolves.toBeDefined();
  });

  it('a state resumed while an encode of the run is under way is not moved on by its answer', async () => {
    // A load that read the rows before the pending event was stored resumes the run there.
    const thread = made(threadCodecHost(new PromptTexts(), 10));
    const [e0, e1] = eventsOf('a') as [RunEvent, RunEvent];
    thread.start('a');
    const { bodies } = await thread.encode('a', [e0]);
    const pending = thread.encode('a', [e1]);
    const reader = new RunCodec(new PromptTexts());
    reader.decode(bodies[0] as string, 'a', 0);
    thread.resume('a', reader, bodies);
    await pending;
    expect(thread.count('a')).toBe(1);
    await expect(thread.encode('a', [e1])).resolves.toMatchObject({ bodies: [expect.any(String)] });
    expect(thread.count('a')).toBe(2);
  });

  it('an event structured clone refuses (a Proxy) is encoded from its JSON, as in this thread', async () => {
    const local = made(localCodecHost(new PromptTexts(), 10));
    const thread = made(threadCodecHost(new PromptTexts(), 10));
    const events = eventsOf('p').map((event) => new Proxy(event, {}));
    for (const host of [local, thread]) host.start('p');
    const here = await local.encode('p', events);
    await expect(thread.encode('p', events)).resolves.toEqual(here);
  });

  it('an event that is not JSON (a BigInt), or out of order, fails its run alone and drops its state', async () => {
    const thread = made(threadCodecHost(new PromptTexts(), 10));
    thread.start('bad');
    thread.start('good');
    const [first, ...rest] = eventsOf('bad');
    const bigint = { ...first, extra: 10n } as unknown as RunEvent;
    await expect(thread.encode('bad', [bigint])).rejects.toThrow(TypeError);
    expect(thread.count('bad')).toBeUndefined();
    thread.start('gap');
    await expect(thread.encode('gap', rest)).rejects.toThrow(/is not the next/);
    expect(thread.count('gap')).toBeUndefined();
    await expect(thread.encode('good', eventsOf('good'))).resolves.toMatchObject({
      bodies: expect.arrayContaining([expect.any(String)]),
    });
    expect(thread.count('good')).toBe(7);
  });

  it('close fails what waits on the thread and ends it', async () => {
    const thread = made(threadCodecHost(new PromptTexts(), 10));
    thread.start('c');
    const waiting = expect(thread.encode('c', eventsOf('c'))).rejects.toThrow(/closed/);
    await thread.close();
    await waiting;
    expect(thread.count('c')).toBeUndefined();
  });
});
