import { afterEach, describe, expect, it } from 'vitest';
import { badCharacter, findBadText } from '@reins/server';
import { as, final, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const quick = {
  name: 'quick',
  call: () =>
    Promise.resolve({ ok: true as const, text: final('ok'), usage: { inputTokens: 1, outputTokens: 1 } }),
};

async function call(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  running ??= await start({ agents: { chef: { model: quick, tools: [] } } });
  const response = await fetch(`${running.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...as('alice'), 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { code: string; message: string } },
  };
}

describe('the request-text rule (issue 16.6)', () => {
  it('refuses NUL, C0 (line breaks only where allowed), DEL, C1 and lone surrogates; keeps pairs', () => {
    expect(badCharacter('a\u0000', true)).toBe('a NUL byte');
    expect(badCharacter('a\nb\tc\r', true)).toBeUndefined();
    expect(badCharacter('a\nb', false)).toBe('a control character (U+000A)');
    expect(badCharacter('\u007f', true)).toBe('a control character (U+007F)');
    expect(badCharacter('\u0085', true)).toBe('a control character (U+0085)');
    expect(badCharacter('\ud83c', true)).toBe('a lone surrogate (U+D83C)');
    expect(badCharacter('\udf45', true)).toBe('a lone surrogate (U+DF45)');
    expect(badCharacter('番茄\u{1f345}\u00a0', false)).toBeUndefined();
  });

  it('names the first bad field at any depth, keys too, and walks 100 000 levels without a stack overflow', () => {
    const free = new Set(['notes']);
    expect(findBadText({ a: [{ b: 'x' }, { b: 'y\u0001' }] }, free)).toEqual({
      field: 'a.1.b',
      problem: 'a control character (U+0001)',
    });
    expect(findBadText({ notes: ['a\nb'], name: 'ok' }, free)).toBeUndefined();
    expect(findBadText({ 'k\u0000': 1 }, free)?.field).toBe('k\\u0000');
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findBadText(deep, free)?.problem).toBe('a NUL byte');
  });
});

describe('/v1: control characters are a 400 INVALID_PARAMETER naming the field (issue 16.6)', () => {
  it('nul-byte-in-run-input: POST /v1/runs `input`; a newline in a question is fine', async () => {
    expect(await call('/v1/runs', { method: 'POST', body: { agent: 'chef', input: 'hi\u0000' } })).toEqual({
      status: 400,
      body: { error: { code: 'INVALID_PARAMETER', message: 'input: contains a NUL byte' } },
    });
    expect(
      (await call('/v1/runs', { method: 'POST', body: { agent: 'chef', input: 'two\nlines' } })).status,
    ).toBe(200);
  });

  it('agent, model, conversationId and unknown keys are one line', async () => {
    for (const [body, field] of [
      [{ agent: 'chef\n', input: 'hi' }, 'agent'],
      [{ agent: 'chef', input: 'hi', model: 'm\u0000' }, 'model'],
      [{ agent: 'chef', input: 'hi', conversationId: 'c\u0001' }, 'conversationId'],
      [{ agent: 'chef', input: 'hi', 'x\u0000': 1 }, 'x\\u0000'],
    ] as const) {
      const reply = await call('/v1/runs', { method: 'POST', body });
      expect(reply.status, field).toBe(400);
      expect(reply.body.error?.message).toMatch(new RegExp(`^${field.replace(/\\/g, '\\\\')}: contains`));
    }
  });

  it('answer, path and query parameters and Last-Event-ID', async () => {
    const answer = await call('/v1/runs/r1/answer', {
      method: 'POST',
      body: { questionId: 'q', answer: 'a\u0000' },
    });
    expect(answer.status).toBe(404); // owner first: someone else's (or no) run is a 404 whatever the body
    expect((await call('/v1/runs/%00')).body.error?.message).toBe('path.id: contains a NUL byte');
    expect((await call('/v1/conversations?limit=%00')).body.error?.message).toBe(
      'query.limit: contains a NUL byte',
    );
    // fetch refuses such a header before sending it; a proxy in front might not: app.request.
    const server = (running ??= await start({ agents: { chef: { model: quick, tools: [] } } })).server;
    const events = await server.app.request('/v1/runs/r1/events', {
      headers: { ...as('alice'), 'last-event-id': '1\u0001' },
    });
    expect(events.status).toBe(400);
    expect(await events.json()).toEqual({
      error: {
        code: 'INVALID_PARAMETER',
        message: 'header.last-event-id: contains a control character (U+0001)',
      },
    });
  });
});
