import { describe, expect, it } from 'vitest';
import { byExpiry, parseIngredients } from '../src/parse-input.js';
import { loginErrorText } from '../src/login-error.js';
import { errorText, KNOWN_ERROR_CODES } from '../src/error-text.js';
import { withoutDemoNotice } from '../src/answer-text.js';
import { layers } from '../src/plan-layout.js';
import { brief, planOf, summarize, type WireEvent } from '../src/run-events.js';
import { eventsFromFile } from '../src/run-log.js';
import { parseFrame, readSse } from '../src/sse.js';
import type { FridgeItem } from '../src/types.js';

/** The page's pure logic, in Node (the DOM parts are covered by the browser tests). */
function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('SSE reading', () => {
  it('splits frames across chunk boundaries, joins data lines, skips comments and keep-alives', async () => {
    const events: WireEvent[] = [];
    const text =
      ': keep-alive\n\nid: 0\nevent: start\ndata: {"type":"start","seq":0}\n\n' +
      'id: 1\r\nevent: step\r\ndata: {"type":"step",\r\ndata: "seq":1}\r\n\r\n' +
      'event: done\ndata: {"type":"done","status":"success"}';
    // Every split point of the byte stream gives the same events.
    for (const at of [1, 7, 30, 60, 90, text.length - 3]) {
      events.length = 0;
      await readSse(body([text.slice(0, at), text.slice(at)]), (e) => events.push(e));
      expect(
        events.map((e) => e.type),
        `split at ${at}`,
      ).toEqual(['start', 'step', 'done']);
    }
    expect(events[1]?.seq).toBe(1);
  });

  it('reads a multi-byte character split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: {"type":"message","text":"番茄"}\n\n');
    const events: WireEvent[] = [];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 33));
        c.enqueue(bytes.slice(33));
        c.close();
      },
    });
    await readSse(stream, (e) => events.push(e));
    expect(events[0]?.['text']).toBe('番茄');
  });

  it('drops frames that are not JSON objects; the event name fills a missing type', () => {
    expect(parseFrame('event: step\ndata: not json')).toBeUndefined();
    expect(parseFrame('data: [1,2]')).toBeUndefined();
    expect(parseFrame('event: error\ndata: {"code":"X"}')?.type).toBe('error');
    expect(parseFrame(': only a comment')).toBeUndefined();
  });
});

describe('run logs, plans and summaries', () => {
  it('turns a downloaded run record into events (steps, answer, done)', () => {
    const record = {
      status: 'stopped',
      stop_reason: 'max_steps',
      final_answer: 'partial',
      format: 'raw',
      demo: true,
      steps: [
        { index: 1, phase: 'act', duration_ms: 5, detail: { tool: 'fridge_items', input: {} } },
        { index: 1, phase: 'observe', duration_ms: 7, detail: { observation: { status: 'ok' } } },
      ],
    };
    const events = eventsFromFile({ record, events: undefined });
    expect(events.map((e) => [e.type, e['phase']])).toEqual([
      ['step', 'act'],
      ['step', 'observe'],
      ['message', undefined],
      ['done', undefined],
    ]);
    expect(events[0]).toMatchObject({ tool: 'fridge_items', durationMs: 5, index: 1 });
    expect(events[2]).toMatchObject({ text: 'partial', format: 'raw', demo: true });
    expect(events[3]).toMatchObject({ status: 'stopped', stopReason: 'max_steps' });
    expect(eventsFromFile([{ type: 'start' }, 3, null])).toEqual([{ type: 'start' }]);
    expect(eventsFromFile({ events: [{ type: 'done' }] })).toEqual([{ type: 'done' }]);
    expect(eventsFromFile('nonsense')).toEqual([]);
  });

  it('lays a plan out by dependency depth, tolerating cycles and unknown ids', () => {
    const plan = planOf({
      type: 'step',
      phase: 'plan',
      version: 2,
      reason: 'replan',
      plan: {
        steps: [
          { id: 'a', action: 'x', dependsOn: [] },
          { id: 'b', action: 'y', dependsOn: ['a', 'ghost'] },
          { id: 'c', action: 'z', dependsOn: ['b', 'a'] },
          { id: 'd', action: 'w', dependsOn: ['e'] },
          { id: 'e', action: 'v', dependsOn: ['d'] },
          { action: 'no id' },
        ],
      },
    });
    expect(plan?.version).toBe(2);
    expect(plan?.steps.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const depth = layers(plan!);
    expect(Object.fromEntries(depth)).toMatchObject({ a: 0, b: 1, c: 2 });
    expect(depth.get('d')).toBeGreaterThanOrEqual(0);
    expect(planOf({ type: 'step', phase: 'act' })).toBeUndefined();
  });

  it('summarizes a tool result in a few words', () => {
    expect(summarize({ items: [{ name: '番茄' }, { name: '鸡蛋' }, { name: '葱' }, { name: '姜' }] })).toBe(
      'items: 4 — 番茄, 鸡蛋, 葱…',
    );
    expect(summarize({ matches: [{ recipe: { name: '番茄炒蛋' } }] })).toBe('matches: 1 — 番茄炒蛋');
    expect(summarize({ food: '鸡蛋', found: true })).toBe('food: 鸡蛋 · found: true');
    expect(brief('x'.repeat(500), 10)).toHaveLength(10);
  });
});

describe('form input', () => {
  it('reads ingredients one per line (commas of either width; quantity and unit optional)', () => {
    expect(parseIngredients('番茄, 2, 个\n鸡蛋，3\n\n盐\n葱, abc, 根')).toEqual([
      { name: '番茄', quantity: 2, unit: '个' },
      { name: '鸡蛋', quantity: 3, unit: null },
      { name: '盐', quantity: null, unit: null },
      { name: '葱', quantity: null, unit: '根' },
    ]);
  });

  it('orders the fridge expiring soonest first, undated last', () => {
    const item = (name: string, daysLeft: number | null): FridgeItem => ({
      id: name,
      name,
      quantity: 1,
      unit: '个',
      location: 'fridge',
      expiresOn: null,
      daysLeft,
      version: 1,
    });
    const sorted = [item('c', null), item('b', 3), item('a', -1), item('d', 3)].sort(byExpiry);
    expect(sorted.map((i) => i.name)).toEqual(['a', 'b', 'd', 'c']);
  });
});

describe('sign-in errors (issue 16.4)', () => {
  const texts = {
    signInFailed: 'Sign-in failed',
    signInLocked: (minutes: number) => `locked ${minutes} min`,
    signInBusy: 'busy',
    errorText: (code: string) => errorText(code, 'zh'),
  };
  it('a lockout says how many minutes (rounded up, from Retry-After), a busy server says wait', () => {
    const error = { code: 'RATE_LIMITED', message: 'too many failed sign-ins', status: 429 };
    expect(loginErrorText({ ...error, retryAfter: 900 }, texts)).toBe('locked 15 min');
    expect(loginErrorText({ ...error, retryAfter: 61 }, texts)).toBe('locked 2 min');
    expect(loginErrorText({ ...error, retryAfter: 5 }, texts)).toBe('locked 1 min');
    expect(loginErrorText(error, texts)).toBe('locked 1 min');
    const busy = {
      code: 'SERVICE_UNAVAILABLE',
      message: 'too many sign-ins at once',
      status: 503,
      retryAfter: 1,
    };
    expect(loginErrorText(busy, texts)).toBe('busy');
    // No answer at all (status 0) is not "busy": the code says what happened, in the page's language.
    const offline = { code: 'SERVICE_UNAVAILABLE', message: 'TypeError: Failed to fetch', status: 0 };
    expect(loginErrorText(offline, texts)).toBe('Sign-in failed: 服务暂时不可用，请稍后再试。');
    // Issue 19: the server's English message never reaches a Chinese page.
    const wrong = { code: 'UNAUTHENTICATED', message: 'wrong username or password', status: 401 };
    expect(loginErrorText(wrong, texts)).toBe('Sign-in failed: 用户名或密码不对，或登录已过期。');
  });
});

describe('API error codes in one language (issue 19)', () => {
  it('every code the kitchen and the run server return has its own sentence in both languages', () => {
    const codes = [
      'INVALID_PARAMETER',
      'UNAUTHENTICATED',
      'RATE_LIMITED',
      'CONFLICT',
      'NOT_FOUND',
      'SERVICE_UNAVAILABLE',
      'EXPIRED',
      'QUOTA_EXCEEDED',
      'TOO_MANY_RUNS',
      'PERMISSION_DENIED',
      'PRECONDITION_FAILED',
      'TIMEOUT',
      'PAYLOAD_TOO_LARGE',
      'LIMIT_EXCEEDED',
    ];
    for (const code of codes) {
      expect(KNOWN_ERROR_CODES).toContain(code);
      expect(errorText(code, 'zh')).toMatch(/[\u4e00-\u9fff]/);
      expect(errorText(code, 'zh')).not.toMatch(/[A-Za-z]/);
      expect(errorText(code, 'en')).not.toMatch(/[\u4e00-\u9fff]/);
    }
    expect(errorText('SOMETHING_NEW', 'zh')).toBe('出了点问题（SOMETHING_NEW），请稍后再试。');
  });
  it("the demo notice in an answer's text is dropped (the label says it once), the rest kept", () => {
    expect(withoutDemoNotice('【演示模式：没有配置 AI 模型。】今天吃番茄炒蛋。')).toBe('今天吃番茄炒蛋。');
    expect(withoutDemoNotice('[Demo mode: no AI model.] Tomato eggs.')).toBe('Tomato eggs.');
    expect(withoutDemoNotice('今天吃【演示模式】')).toBe('今天吃【演示模式】');
  });
});
