// @ts-check
/**
 * The load generator, in a process of its own (so its JSON parsing does not run on the
 * orchestrator's clock): `node load.js <spec.json>` keeps `concurrency` `POST /v1/runs`
 * requests (JSON answers, not SSE) in flight for `seconds` — closed loop: when an answer
 * arrives the next request goes out — each as the next user in turn, each with a question
 * asked once. Prints one JSON line: counts by status and every successful request's latency.
 *
 * spec: { url, tokens: string[], concurrency, seconds, level }
 */
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8'));
/** @type {{ url: string, tokens: string[], concurrency: number, seconds: number, level: string }} */
const { url, tokens, concurrency, seconds, level } = spec;
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL('/v1/runs', url);

// Every intent the demo model knows, each question made unique by a number (no cache, no
// same-query limit), Chinese and English.
const QUESTIONS = [
  (/** @type {number} */ n) => `冰箱里有什么快过期了？（第${n}问）`,
  (/** @type {number} */ n) => `今晚吃什么？我们家有${n % 7}个人`,
  (/** @type {number} */ n) => `鸡蛋有多少热量？问题 ${n}`,
  (/** @type {number} */ n) => `家里谁有过敏？#${n}`,
  (/** @type {number} */ n) => `这周的菜单怎么安排？第${n}次`,
  (/** @type {number} */ n) => `What can I cook with tomatoes tonight? (${level}-${n})`,
];

let sequence = 0;
/** @returns {Promise<{ status: number, ms: number, code?: string }>} */
function oneRun() {
  const n = sequence++;
  const token = tokens[n % tokens.length] ?? '';
  const question = QUESTIONS[n % QUESTIONS.length] ?? QUESTIONS[0];
  const body = JSON.stringify({ agent: 'kitchen', input: question?.(n) });
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(target, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: `Bearer ${token}`,
      },
    });
    req.on('response', (res) => {
      const chunks = /** @type {Buffer[]} */ ([]);
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const ms = performance.now() - started;
        const status = res.statusCode ?? 0;
        if (status === 200) return resolve({ status, ms });
        let code = 'unknown';
        try {
          code = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.error?.code ?? 'unknown';
        } catch {
          // not JSON: keep 'unknown'
        }
        resolve({ status, ms, code });
      });
      res.on('error', () => resolve({ status: 0, ms: performance.now() - started, code: 'RESET' }));
    });
    req.on('error', (error) =>
      resolve({
        status: 0,
        ms: performance.now() - started,
        code: /** @type {any} */ (error).code ?? 'ERROR',
      }),
    );
    req.end(body);
  });
}

const latencies = /** @type {number[]} */ ([]);
const errors = /** @type {Record<string, number>} */ ({});
const began = performance.now();
const stopAt = began + seconds * 1000;
const worker = async () => {
  while (performance.now() < stopAt) {
    const r = await oneRun();
    if (r.status === 200) latencies.push(r.ms);
    else {
      const key = `${r.status} ${r.code}`;
      errors[key] = (errors[key] ?? 0) + 1;
    }
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
const wallS = (performance.now() - began) / 1000;
agent.destroy();
process.stdout.write(`${JSON.stringify({ wallS, latencies, errors })}\n`);
