// @ts-check
/**
 * Fan-out choice: the same stream of run-event-sized messages (≈1 KB of JSON) delivered over
 * Redis pub/sub (ioredis, what `RunBus` uses) and over PostgreSQL LISTEN/NOTIFY (pg), to 1
 * and to 2 subscribers, at a steady rate; publish → receive latency per message per
 * subscriber. Also NOTIFY's payload cap (PostgreSQL refuses a payload of 8,000 bytes or
 * more): 7,999, 8,000 and 9,216 bytes are tried on both.
 *
 *   node bench/scale-out/fanout.js [--quick] [--events 2000] [--rate 1000] [--repeats 3]
 *
 * Publisher and subscribers are separate connections in this one process (one clock:
 * `performance.now()`); each subscriber parses every message, as a `RunBus` listener does.
 * run.js calls `fanoutReport` as its last section.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { fmt, int, percentile, table } from '../loop-overhead/report.js';
import { DATABASE_URL, REDIS_URL } from './instance.js';

/** @typedef {'redis' | 'postgres'} Transport */

/**
 * `promise`, or `fallback` after `ms` (the timer is cleared: nothing keeps the process alive).
 * @template T @param {Promise<T>} promise @param {number} ms @param {T} fallback @returns {Promise<T>}
 */
function within(promise, ms, fallback) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A message of `bytes` bytes of JSON carrying its sequence number and send time. */
function message(/** @type {number} */ seq, /** @type {number} */ bytes) {
  const head = JSON.stringify({ seq, t: performance.now(), type: 'step', pad: '' });
  return JSON.stringify({
    seq,
    t: performance.now(),
    type: 'step',
    pad: 'x'.repeat(Math.max(0, bytes - head.length)),
  });
}

/**
 * A publisher and `n` subscribers on one channel.
 * @param {Transport} transport @param {number} n @param {string} channel
 * @param {(k: number, payload: string) => void} onMessage
 */
async function connect(transport, n, channel, onMessage) {
  if (transport === 'redis') {
    const pub = new Redis(REDIS_URL);
    const subs = Array.from({ length: n }, () => new Redis(REDIS_URL));
    await Promise.all(
      subs.map(async (sub, k) => {
        sub.on('message', (_channel, payload) => onMessage(k, payload));
        await sub.subscribe(channel);
      }),
    );
    return {
      publish: (/** @type {string} */ payload) => pub.publish(channel, payload),
      close: async () => {
        pub.disconnect();
        for (const sub of subs) sub.disconnect();
      },
    };
  }
  const pub = new pg.Client({ connectionString: DATABASE_URL });
  await pub.connect();
  // One connection, one NOTIFY after another (what the client does anyway; this says so):
  // the messages of a run must arrive in order, so they cannot be spread over a pool.
  /** @type {Promise<unknown>} */
  let tail = Promise.resolve();
  const subs = Array.from({ length: n }, () => new pg.Client({ connectionString: DATABASE_URL }));
  await Promise.all(
    subs.map(async (sub, k) => {
      await sub.connect();
      sub.on('notification', (note) => onMessage(k, note.payload ?? ''));
      await sub.query(`LISTEN ${channel}`);
    }),
  );
  return {
    publish: (/** @type {string} */ payload) => {
      const sent = tail.then(() => pub.query('SELECT pg_notify($1, $2)', [channel, payload]));
      tail = sent.catch(() => undefined);
      return sent;
    },
    close: async () => {
      await Promise.all([pub.end(), ...subs.map((s) => s.end())]);
    },
  };
}

/**
 * Publishes `events` messages of `bytes` bytes at `rate` per second to `subscribers`
 * subscribers; every received message's latency (receive − send).
 * @param {{ transport: Transport, subscribers: number, events: number, rate: number, bytes: number }} o
 */
export async function measureFanout({ transport, subscribers, events, rate, bytes }) {
  const channel = `bench_fanout_${randomBytes(4).toString('hex')}`;
  /** @type {number[]} */
  const latencies = [];
  const received = Array.from({ length: subscribers }, () => 0);
  const outOfOrder = Array.from({ length: subscribers }, () => 0);
  const lastSeq = Array.from({ length: subscribers }, () => -1);
  /** @type {() => void} */
  let allIn = () => undefined;
  const everything = new Promise((resolve) => (allIn = () => resolve(undefined)));
  const bus = await connect(transport, subscribers, channel, (k, payload) => {
    const now = performance.now();
    const { seq, t } = JSON.parse(payload);
    latencies.push(now - t);
    if (seq < (lastSeq[k] ?? -1)) outOfOrder[k] = (outOfOrder[k] ?? 0) + 1;
    lastSeq[k] = seq;
    received[k] = (received[k] ?? 0) + 1;
    if (received.every((r) => r === events)) allIn();
  });
  /** @type {string[]} */
  const publishErrors = [];
  /** @type {Promise<unknown>[]} */
  const publishes = [];
  const began = performance.now();
  let sent = 0;
  // Paced: at each tick, publish what is due by now (≈ rate per second, evenly).
  while (sent < events) {
    const due = Math.min(events, Math.floor(((performance.now() - began) * rate) / 1000) + 1);
    while (sent < due) {
      publishes.push(
        bus.publish(message(sent++, bytes)).catch((/** @type {Error} */ e) => publishErrors.push(e.message)),
      );
    }
    await sleep(1);
  }
  const publishS = (performance.now() - began) / 1000;
  await within(everything, 10_000, undefined);
  // Every publish answered before the connections close: a NOTIFY delivered before its own
  // reply came back is not a publish error (closing first made it one on a busy machine).
  await within(Promise.all(publishes), 10_000, undefined);
  await bus.close();
  latencies.sort((a, b) => a - b);
  return {
    transport,
    subscribers,
    events,
    bytes,
    ratePerS: events / publishS,
    received: received.reduce((a, b) => a + b, 0),
    expected: events * subscribers,
    outOfOrder: outOfOrder.reduce((a, b) => a + b, 0),
    publishErrors: publishErrors.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? NaN,
  };
}

/**
 * One message of each size over each transport: delivered (and how long it took), or the error.
 * @param {number[]} sizes
 */
export async function payloadCaps(sizes = [7_999, 8_000, 9_216]) {
  const out = [];
  for (const transport of /** @type {Transport[]} */ (['redis', 'postgres'])) {
    for (const bytes of sizes) {
      const channel = `bench_cap_${randomBytes(4).toString('hex')}`;
      /** @type {(value: number) => void} */
      let got = () => undefined;
      const arrived = new Promise((resolve) => (got = resolve));
      const bus = await connect(transport, 1, channel, (_k, payload) => got(Buffer.byteLength(payload)));
      const payload = 'y'.repeat(bytes);
      const sent = performance.now();
      const outcome = await bus.publish(payload).then(
        async () => {
          const size = await within(arrived, 2_000, -1);
          return size === bytes ? `delivered in ${fmt(performance.now() - sent)} ms` : 'not delivered';
        },
        (/** @type {Error} */ error) => `refused: ${error.message}`,
      );
      await bus.close();
      out.push({ transport, bytes, outcome });
    }
  }
  return out;
}

/** @param {number[]} xs */
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/**
 * Runs the comparison (`repeats` rounds, the transports taking turns within each; the table
 * shows each figure's median over the rounds) and returns its markdown and its data.
 * @param {{ events: number, rate: number, repeats?: number, bytes?: number }} o
 */
export async function fanoutReport({ events, rate, repeats = 3, bytes = 1_024 }) {
  const transports = /** @type {Transport[]} */ (['redis', 'postgres']);
  // Warm-up (connections, JIT) on both, not measured.
  for (const transport of transports)
    await measureFanout({ transport, subscribers: 1, events: Math.min(200, events), rate, bytes });
  /** @type {Awaited<ReturnType<typeof measureFanout>>[]} */
  const rounds = [];
  for (let round = 0; round < repeats; round++) {
    for (const subscribers of [1, 2]) {
      for (const transport of transports) {
        rounds.push(await measureFanout({ transport, subscribers, events, rate, bytes }));
      }
    }
  }
  const results = [1, 2].flatMap((subscribers) =>
    transports.map((transport) => {
      const same = rounds.filter((r) => r.transport === transport && r.subscribers === subscribers);
      const sum = (/** @type {(r: (typeof same)[number]) => number} */ f) =>
        same.reduce((a, r) => a + f(r), 0);
      return {
        transport,
        subscribers,
        rounds: same.length,
        ratePerS: median(same.map((r) => r.ratePerS)),
        received: sum((r) => r.received),
        expected: sum((r) => r.expected),
        outOfOrder: sum((r) => r.outOfOrder),
        publishErrors: sum((r) => r.publishErrors),
        p50Ms: median(same.map((r) => r.p50Ms)),
        p99Ms: median(same.map((r) => r.p99Ms)),
        maxMs: Math.max(...same.map((r) => r.maxMs)),
      };
    }),
  );
  const caps = await payloadCaps();
  const markdown = [
    `${int(events)} messages of ${int(bytes)} B JSON at ~${int(rate)}/s, ${repeats} round(s) (p50, p99: median of the rounds; max: of all); publisher and subscribers are separate connections in one process\n`,
    table(
      [
        'transport',
        'subscribers',
        'sent/s',
        'received / expected',
        'out of order',
        'publish→receive p50 / p99 / max (ms)',
      ],
      results.map((r) => [
        r.transport === 'redis' ? 'Redis pub/sub' : 'PostgreSQL NOTIFY',
        r.subscribers,
        int(r.ratePerS),
        `${int(r.received)} / ${int(r.expected)}`,
        int(r.outOfOrder),
        `${fmt(r.p50Ms)} / ${fmt(r.p99Ms)} / ${fmt(r.maxMs)}`,
      ]),
    ),
    '',
    table(
      ['one message of', 'Redis pub/sub', 'PostgreSQL NOTIFY'],
      [...new Set(caps.map((c) => c.bytes))].map((size) => [
        `${int(size)} B`,
        caps.find((c) => c.bytes === size && c.transport === 'redis')?.outcome ?? '',
        caps.find((c) => c.bytes === size && c.transport === 'postgres')?.outcome ?? '',
      ]),
    ),
  ].join('\n');
  return { markdown, results, rounds, caps };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const option = (/** @type {string} */ name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const report = await fanoutReport({
    events: Number(option('--events') ?? (quick ? 500 : 2_000)),
    rate: Number(option('--rate') ?? 1_000),
    repeats: Number(option('--repeats') ?? (quick ? 1 : 3)),
  });
  console.log(`\n## Fan-out: Redis pub/sub vs PostgreSQL LISTEN/NOTIFY\n`);
  console.log(report.markdown);
}
