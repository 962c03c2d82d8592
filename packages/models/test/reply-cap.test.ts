import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropic, openAiCompatible, DEFAULT_MAX_MODEL_REPLY_BYTES } from '@reins/models';
import type { Model, ModelRequest } from 'reins';
import { chunk, completion, fakeProvider, waitFor } from './fake-provider.js';

// Issue 16.9: a 20 MB reply was read whole (+250 MB server memory). Replies are read as a
// stream with a cap (`maxModelReplyBytes`, default 256 KB); past it the read is aborted and
// the call fails LIMIT_EXCEEDED.

const MB = 1024 * 1024;
const HUGE = 20 * MB;
/** The documented default (256 KB). */
const CAP = 262_144;

const request = (): ModelRequest => ({
  messages: [{ role: 'user', content: 'q' }],
  tools: [],
  signal: new AbortController().signal,
  step: 1,
  finalStep: false,
});

/** A full collection, when the process lets us ask for one (`--expose-gc` switched on here). */
const gc = ((): (() => void) => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return () => undefined;
  }
})();

const rss = (): number => {
  gc();
  gc();
  return process.memoryUsage().rss;
};

/**
 * Writes `head`, then `filler` until the body reaches `total` bytes, then `tail` — honouring
 * backpressure, so the server side never holds more than a chunk (20 MB is never built as one
 * string) and stops as soon as the client hangs up. Records the bytes it got out.
 */
function flood(res: ServerResponse, type: string, head: string, filler: string, tail: string, total: number) {
  if (!Number.isSafeInteger(total)) throw new Error(`flood: no total (${total})`);
  const sent = { bytes: 0, closed: false };
  res.writeHead(200, { 'content-type': type });
  res.on('close', () => (sent.closed = true));
  res.on('error', () => undefined); // the client hanging up mid-body is the point
  const piece = Buffer.from(filler);
  const write = (data: Buffer | string): boolean => {
    sent.bytes += Buffer.byteLength(data);
    return res.write(data);
  };
  const pump = (): void => {
    while (!sent.closed) {
      const left = total - Buffer.byteLength(tail) - sent.bytes;
      if (left <= 0) {
        sent.bytes += Buffer.byteLength(tail);
        res.end(tail);
        return;
      }
      if (!write(left >= piece.length ? piece : piece.subarray(0, left))) {
        res.once('drain', pump);
        return;
      }
    }
  };
  write(head);
  pump();
  return sent;
}

type Wire = 'json' | 'sse';
type Flavor = 'openai' | 'anthropic';

/** A reply of exactly `total` bytes in the provider's own form, whose text is all `x`. */
function answer(flavor: Flavor, wire: Wire, res: ServerResponse, total: number) {
  if (wire === 'json') {
    // The text is the filler: `{…"content":"xxxx…xxx"…}` with head and tail around it.
    const whole =
      flavor === 'openai'
        ? JSON.stringify(completion('@@'))
        : JSON.stringify({
            content: [{ type: 'text', text: '@@' }],
            usage: { input_tokens: 1, output_tokens: 1 },
          });
    const [head, tail] = whole.split('@@') as [string, string];
    return flood(res, 'application/json', head, 'x'.repeat(64 * 1024), tail, total);
  }
  const event = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
  // Each filler event is one text delta of 16 KB of `x`; the padding event makes the length exact.
  const delta = (text: string): string =>
    flavor === 'openai'
      ? event(chunk({ content: text }))
      : event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
  const start =
    flavor === 'openai'
      ? event(chunk({ role: 'assistant', content: '' }))
      : event({ type: 'message_start', message: { usage: { input_tokens: 1 } } }) +
        event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  const end = flavor === 'openai' ? 'data: [DONE]\n\n' : event({ type: 'message_stop' });
  const filler = delta('x'.repeat(16 * 1024));
  const room = total - start.length - end.length;
  const whole = Math.floor(room / filler.length);
  const rest = room - whole * filler.length;
  // A remainder too small for a delta event is made of comment lines, which carry no text.
  const pad =
    rest === 0
      ? ''
      : rest > delta('').length
        ? delta('x'.repeat(rest - delta('').length))
        : `:${' '.repeat(Math.max(0, rest - 2))}\n`.slice(-rest); // 1 byte: a lone blank line
  return flood(res, 'text/event-stream', start + pad, filler, end, total);
}

let provider: Awaited<ReturnType<typeof fakeProvider>> | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

function modelFor(flavor: Flavor, wire: Wire, baseURL: string, maxModelReplyBytes?: number): Model {
  const common = {
    model: 'm',
    stream: wire === 'sse',
    ...(maxModelReplyBytes === undefined ? {} : { maxModelReplyBytes }),
  };
  return flavor === 'openai'
    ? openAiCompatible({ ...common, baseURL })
    : anthropic({ ...common, apiKey: 'k', baseURL: baseURL.replace(/\/v1$/, '') });
}

const cases: [Flavor, Wire][] = [
  ['openai', 'json'],
  ['openai', 'sse'],
  ['anthropic', 'json'],
  ['anthropic', 'sse'],
];

describe('model replies are read with a cap (maxModelReplyBytes)', () => {
  it.each(cases)(
    '%s %s: a 20 MB reply fails LIMIT_EXCEEDED at once, the read aborted, RSS flat',
    async (flavor, wire) => {
      let total = HUGE;
      const sends: { bytes: number; closed: boolean }[] = [];
      provider = await fakeProvider((_r, res) => sends.push(answer(flavor, wire, res, total)));
      const model = modelFor(flavor, wire, provider.baseURL);
      // Warm up on a small reply: code paths loaded, buffers sized, before the baseline.
      total = 4096;
      expect((await model.call(request())).ok).toBe(true);
      total = HUGE;
      const before = rss();
      const seen: { code: string; message: string; took: number; bytes: number; closed: boolean }[] = [];
      for (let i = 0; i < 3; i += 1) {
        const started = Date.now();
        const result = await model.call(request());
        const took = Date.now() - started;
        // The client hung up: the server saw the connection close.
        const send = sends.at(-1);
        await waitFor(() => send?.closed === true).catch(() => undefined); // asserted below
        // Kept small on purpose: a failing run must not print (or diff) a 20 MB text.
        seen.push({
          code: result.ok ? `ok (${result.text.length} chars)` : result.error.code,
          message: result.ok ? '' : result.error.message,
          took,
          bytes: send?.bytes ?? 0,
          closed: send?.closed === true,
        });
      }
      const growth = rss() - before;
      console.log(`${flavor} ${wire}: RSS growth after 3 × 20 MB replies: ${(growth / MB).toFixed(1)} MB`);
      for (const call of seen) {
        expect(call.code).toBe('LIMIT_EXCEEDED');
        expect(call.message).toContain(`${CAP} bytes`);
        expect(call.took).toBeLessThan(5_000); // milliseconds in practice; 20 MB would be read otherwise
        expect(call.closed).toBe(true); // the connection is gone, not parked in a pool
        expect(call.bytes).toBeLessThan(HUGE / 2); // far short of 20 MB left the server
      }
      expect(growth).toBeLessThan(30 * MB);
    },
  );

  it('the default cap is 256 KB', () => {
    expect(DEFAULT_MAX_MODEL_REPLY_BYTES).toBe(CAP);
  });

  it.each(cases)(
    '%s %s: a reply of exactly the cap is read; one byte more is refused',
    async (flavor, wire) => {
      let total = CAP;
      provider = await fakeProvider((_r, res) => answer(flavor, wire, res, total));
      const model = modelFor(flavor, wire, provider.baseURL);
      const result = await model.call(request());
      expect(result.ok).toBe(true);
      expect(result.ok && result.text).toMatch(/^x{200000,}$/); // nearly the whole 256 KB is text
      total = CAP + 1;
      expect(await model.call(request())).toMatchObject({ ok: false, error: { code: 'LIMIT_EXCEEDED' } });
    },
  );

  it.each(cases)('%s %s: the cap is an option', async (flavor, wire) => {
    let total = 4096;
    provider = await fakeProvider((_r, res) => answer(flavor, wire, res, total));
    const model = modelFor(flavor, wire, provider.baseURL, 4096);
    expect((await model.call(request())).ok).toBe(true);
    total = 4097;
    expect(await model.call(request())).toMatchObject({
      ok: false,
      error: { code: 'LIMIT_EXCEEDED', message: expect.stringContaining('4096 bytes') },
    });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses maxModelReplyBytes %s at construction',
    (bad) => {
      expect(() => openAiCompatible({ model: 'm', maxModelReplyBytes: bad })).toThrow(RangeError);
      expect(() => anthropic({ model: 'm', apiKey: 'k', maxModelReplyBytes: bad })).toThrow(RangeError);
    },
  );
});
