import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptModel } from 'reins/testing';
import { as, final, start, type Started } from './helpers.js';

let running: Started | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** The raw answer: its headers and its bytes as sent. */
function send(
  url: string,
  method: string,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method,
      headers: { ...as('alice'), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    });
    req.on('error', reject);
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes: Buffer.concat(chunks),
        }),
      );
    });
    req.end(body);
  });
}

describe('JSON answers with a run in them', () => {
  // Multi-byte text (CJK, an emoji outside the BMP) and characters JSON escapes.
  const text = '鸡蛋 🥚 每 100 克 13.28 g 蛋白质 "quoted" \\ back\nslash';

  it('POST /v1/runs and GET /v1/runs/:id: UTF-8 JSON, its exact length, the run id header', async () => {
    running = await start({ agents: { helper: { model: scriptModel([final(text)]) } } });
    const posted = await send(
      `${running.url}/v1/runs`,
      'POST',
      JSON.stringify({ agent: 'helper', input: 'eggs?' }),
    );
    expect(posted.status).toBe(200);
    expect(posted.headers['content-type']).toBe('application/json');
    expect(Number(posted.headers['content-length'])).toBe(posted.bytes.length);
    const answer = JSON.parse(posted.bytes.toString('utf8')) as {
      record: { run_id: string; final_answer: string };
      events: { type: string; text?: string }[];
    };
    expect(answer.record.final_answer).toBe(text);
    expect(answer.events.find((e) => e.type === 'message')?.text).toBe(text);
    expect(posted.headers['x-run-id']).toBe(answer.record.run_id);
    // What JSON.stringify wrote, byte for byte (as `c.json` sent it).
    expect(posted.bytes.toString('utf8')).toBe(JSON.stringify(answer));

    const read = await send(`${running.url}/v1/runs/${answer.record.run_id}`, 'GET');
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe('application/json');
    expect(Number(read.headers['content-length'])).toBe(read.bytes.length);
    expect(JSON.parse(read.bytes.toString('utf8'))).toEqual(answer.record);
  });
});
