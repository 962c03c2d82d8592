import { describe, expect, it } from 'vitest';
import { DEMO_NOTICE, demoModel, runAgent } from 'reins';
import { parseScript, scriptModel } from 'reins/testing';
import { exampleTools } from '../src/cli/example-tools.js';

describe('script model', () => {
  it('parses JSONL: strings, {text, delayMs}, {error}; skips blanks and // comments', () => {
    const replies = parseScript('"a"\n\n// note\n{"text":"b","delayMs":200}\n{"error":"http_500"}\n');
    expect(replies).toEqual(['a', { text: 'b', delayMs: 200 }, { error: 'http_500' }]);
  });

  it('refuses malformed lines with the line number', () => {
    expect(() => parseScript('"a"\n{"txt":"b"}')).toThrow(/line 2/);
    expect(() => parseScript('{oops')).toThrow(/line 1/);
  });

  it('fails as data when exhausted, and assertComplete catches unused replies', async () => {
    const model = scriptModel(['"only"', 'unused']);
    const signal = new AbortController().signal;
    const request = { messages: [], tools: [], signal, step: 1, finalStep: false };
    await expect(model.call(request)).resolves.toMatchObject({ ok: true, text: '"only"' });
    expect(() => model.assertComplete()).toThrow(/1 of 2 replies were never used/);
    await model.call(request);
    model.assertComplete();
    await expect(model.call(request)).resolves.toMatchObject({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE' },
    });
  });

  it('maps scripted errors to codes', async () => {
    const model = scriptModel([{ error: 'timeout' }, { error: 'http_429' }, { error: 'PERMISSION_DENIED' }]);
    const request = {
      messages: [],
      tools: [],
      signal: new AbortController().signal,
      step: 1,
      finalStep: false,
    };
    const codes = [];
    for (let i = 0; i < 3; i++) {
      const result = await model.call(request);
      codes.push(result.ok ? 'ok' : result.error.code);
    }
    expect(codes).toEqual(['TIMEOUT', 'RATE_LIMITED', 'PERMISSION_DENIED']);
  });
});

describe('demo model', () => {
  it('uses the matching tool and labels its answer as a demo', async () => {
    const run = runAgent({ query: '上海天气怎么样？', model: demoModel(), tools: exampleTools() });
    const record = await run.result;
    expect(record.status).toBe('success');
    expect(record.demo).toBe(true);
    expect(record.steps[1]?.detail).toEqual({ tool: 'get_weather', input: { city: '上海' } });
    expect(record.final_answer.startsWith(DEMO_NOTICE)).toBe(true);
    expect(record.final_answer).toContain('"temperature":28');
    expect(run.events[0]).toMatchObject({ type: 'start', demo: true });
  });

  it('chains several tools for a compound question', async () => {
    const record = await runAgent({
      query: 'What is (2+3)*4, and the time in Asia/Tokyo?',
      model: demoModel(),
      tools: exampleTools({ now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }),
    }).result;
    expect(record.final_answer).toContain('"value":20');
    expect(record.final_answer).toContain('2026-01-02, 12:04:05');
  });

  it('demo-weather-in-shanghai-calls-only-get-weather: a city named in another tool’s example is no reason to call it', async () => {
    const record = await runAgent({ query: 'weather in Shanghai', model: demoModel(), tools: exampleTools() })
      .result;
    expect(record.steps.filter((s) => s.phase === 'act').map((s) => s.detail.tool)).toEqual(['get_weather']);
  });

  it('says it cannot answer (still labeled) when no tool matches', async () => {
    const record = await runAgent({ query: 'hello there', model: demoModel(), tools: exampleTools() }).result;
    expect(record.final_answer).toMatch(/^\[Demo answer.*No tool matched/);
    expect(record.model_steps).toBe(1);
  });

  it('reports a tool failure honestly', async () => {
    const record = await runAgent({ query: 'weather in Atlantis', model: demoModel(), tools: exampleTools() })
      .result;
    expect(record.final_answer).toContain('did not succeed (NOT_FOUND');
  });
});
