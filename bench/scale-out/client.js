// @ts-check
/**
 * The scale-out bench's client side: SSE runs with the added latency of every event, and the
 * control round trips (cancel and approve sent to another API instance than the one streaming
 * the run). Plain node:http over keep-alive agents, so a measurement is the server's time and
 * the wire's, not a client library's.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** A keep-alive agent with no socket cap (one per API instance, or shared). */
export const keepAlive = () => new Agent({ keepAlive: true, maxSockets: Infinity });

/** @param {string} user */
export const auth = (user) => ({ authorization: `Bearer user:${user}` });

/**
 * @typedef {{ seq: number, type: string, at: number, runId: string, status?: string,
 *   phase?: string, actId?: string, inputHash?: string }} Event
 */

/**
 * @typedef {object} Stream
 * @property {number} status           HTTP status (0 until the status line arrived)
 * @property {number} sentAt           performance.now() when the request was sent
 * @property {number} headersAt        performance.now() of the status line (NaN before)
 * @property {number} firstEventAt     performance.now() of the first run event (NaN before)
 * @property {Event[]} events          run events received, in order
 * @property {number[]} addedMs        per event: arrival (Date.now()) minus the event's `at`
 * @property {string} text             the body, when it is not an event stream (errors)
 * @property {Promise<void>} ended     resolves when the response ends or the request fails
 * @property {string | undefined} error a transport error, if any
 * @property {(p: (e: Event) => boolean) => Promise<Event | undefined>} waitFor first event matching (undefined if the stream ends first)
 * @property {() => void} destroy      drops the connection (the client leaving)
 */

/**
 * Sends a request with `accept: text/event-stream` and parses the SSE response as it comes.
 * @param {string} url
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string>, agent?: Agent }} [o]
 * @returns {Stream}
 */
export function openStream(url, o = {}) {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  /** @type {{ p: (e: Event) => boolean, resolve: (e: Event | undefined) => void }[]} */
  let waiters = [];
  /** @type {() => void} */
  let endResolve = () => undefined;
  /** @type {Stream} */
  const s = {
    status: 0,
    sentAt: performance.now(),
    headersAt: NaN,
    firstEventAt: NaN,
    events: [],
    addedMs: [],
    text: '',
    ended: new Promise((r) => (endResolve = () => r(undefined))),
    error: undefined,
    waitFor: (p) =>
      new Promise((resolve) => {
        const seen = s.events.find(p);
        if (seen !== undefined || done) return resolve(seen);
        waiters.push({ p, resolve });
      }),
    destroy: () => req.destroy(),
  };
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    for (const w of waiters) w.resolve(undefined);
    waiters = [];
    endResolve();
  };
  const req = request(url, {
    method: o.method ?? 'POST',
    ...(o.agent === undefined ? {} : { agent: o.agent }),
    headers: {
      accept: 'text/event-stream',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...o.headers,
    },
  });
  req.on('response', (res) => {
    s.headersAt = performance.now();
    s.status = res.statusCode ?? 0;
    const isStream = String(res.headers['content-type'] ?? '').includes('text/event-stream');
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (/** @type {string} */ chunk) => {
      if (!isStream) {
        s.text += chunk;
        return;
      }
      const now = Date.now();
      buffer += chunk;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (!frame.split('\n').some((l) => l.startsWith('id: '))) continue; // keep-alive, reconnect, error
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (data === undefined) continue;
        const event = /** @type {Event} */ (JSON.parse(data.slice(6)));
        if (s.events.length === 0) s.firstEventAt = performance.now();
        s.events.push(event);
        s.addedMs.push(now - event.at);
        waiters = waiters.filter((w) => {
          if (!w.p(event)) return true;
          w.resolve(event);
          return false;
        });
      }
    });
    res.on('end', finish);
    res.on('close', finish);
    res.on('error', finish);
  });
  req.on('error', (error) => {
    s.error = error.message;
    finish();
  });
  req.end(body);
  return s;
}

/**
 * A JSON request; times the status line and the end of the body.
 * @param {string} url @param {unknown} body @param {Record<string, string>} headers @param {Agent} [agent]
 * @returns {Promise<{ status: number, body: Record<string, unknown>, headersMs: number, totalMs: number, error?: string }>}
 */
export function postJson(url, body, headers, agent) {
  return new Promise((resolve) => {
    const sent = performance.now();
    const req = request(url, {
      method: 'POST',
      ...(agent === undefined ? {} : { agent }),
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    });
    req.on('response', (res) => {
      const headersMs = performance.now() - sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (/** @type {string} */ chunk) => (text += chunk));
      res.on('end', () => {
        /** @type {Record<string, unknown>} */
        let parsed;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = { text };
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, headersMs, totalMs: performance.now() - sent });
      });
    });
    req.on('error', (error) =>
      resolve({
        status: 0,
        body: {},
        headersMs: NaN,
        totalMs: performance.now() - sent,
        error: error.message,
      }),
    );
    req.end(JSON.stringify(body));
  });
}

/**
 * One SSE run from start to `done`, and where its time went: `headersMs` (the API stored and
 * queued it), `queuedMs` (sent → the worker's `start` event: API + queue + the worker taking
 * and rebuilding it), `workerMs` (the worker's `start` → its `done`, by the events' own
 * times), `durationMs` (sent → `done` received here).
 * @param {string} base API instance URL
 * @param {{ agent: string, input: string, user: string, httpAgent?: Agent }} o
 */
export async function sseRun(base, o) {
  const sentEpoch = Date.now();
  const stream = openStream(`${base}/v1/runs`, {
    body: { agent: o.agent, input: o.input },
    headers: auth(o.user),
    ...(o.httpAgent === undefined ? {} : { agent: o.httpAgent }),
  });
  await stream.ended;
  const first = stream.events[0];
  const last = stream.events.at(-1);
  const endedAt = performance.now();
  return {
    ok: stream.status === 200 && last?.type === 'done' && last.status === 'success',
    status:
      last?.type === 'done' ? (last.status ?? '') : `http ${stream.status} ${stream.error ?? stream.text}`,
    events: stream.events,
    addedMs: stream.addedMs,
    durationMs: endedAt - stream.sentAt,
    headersMs: stream.headersAt - stream.sentAt,
    queuedMs: first?.type === 'start' ? first.at - sentEpoch : NaN,
    workerMs: first?.type === 'start' && last?.type === 'done' ? last.at - first.at : NaN,
  };
}

/**
 * Cancel round trip: a `slow` run streamed from `a` (held by a worker in its 30 s model
 * step), cancelled on `b`; the run must end `cancelled` with no step done. Times the cancel response (which waits for the run to end) and the
 * `done {cancelled}` on the stream from `a`, both from the moment the cancel is sent.
 * @param {string} a @param {string} b @param {string} user @param {Agent} [httpAgent]
 */
export async function cancelRoundTrip(a, b, user, httpAgent) {
  const stream = openStream(`${a}/v1/runs`, {
    body: { agent: 'slow', input: `hold on, ${user}` },
    headers: auth(user),
    ...(httpAgent === undefined ? {} : { agent: httpAgent }),
  });
  // A worker holds the run: its `start` came from the worker, which calls the model right
  // after it (a `step` event would come only once that 30 s step ended).
  const started = await stream.waitFor((e) => e.type === 'start');
  if (started === undefined) {
    return { ok: false, problem: `the run did not start: ${stream.status} ${stream.error ?? stream.text}` };
  }
  const sent = performance.now();
  const doneAt = stream.waitFor((e) => e.type === 'done').then(() => performance.now());
  const answer = await postJson(`${b}/v1/runs/${started.runId}/cancel`, {}, auth(user), httpAgent);
  const done = await doneAt;
  await stream.ended;
  const last = stream.events.at(-1);
  return {
    ok:
      answer.status === 200 &&
      answer.body['status'] === 'cancelled' &&
      answer.body['steps_completed'] === 0 &&
      last?.status === 'cancelled',
    problem: `cancel ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}; stream ended ${last?.type} ${last?.status}`,
    responseMs: answer.totalMs,
    streamDoneMs: done - sent,
  };
}

/**
 * Approve round trip: an `approve` run streamed from `a` to its pause (`done
 * {awaiting_approval}` after its `approval` event); then POST /approve on `b`, in the JSON
 * form (the response is the run's next stop: the status line comes with the body) or the SSE
 * form (the status line once a worker took the approval, then the run's events).
 * @param {string} a @param {string} b @param {string} user @param {'json' | 'sse'} form @param {Agent} [httpAgent]
 */
export async function approveRoundTrip(a, b, user, form, httpAgent) {
  const paused = openStream(`${a}/v1/runs`, {
    body: { agent: 'approve', input: `order milk for ${user}` },
    headers: auth(user),
    ...(httpAgent === undefined ? {} : { agent: httpAgent }),
  });
  await paused.ended;
  const approval = paused.events.find((e) => e.type === 'approval');
  const pause = paused.events.at(-1);
  if (approval === undefined || pause?.status !== 'awaiting_approval') {
    return { ok: false, problem: `no pause: ${paused.status} ${paused.error ?? paused.text}` };
  }
  const url = `${b}/v1/runs/${approval.runId}/approve`;
  const decision = { actId: approval.actId, inputHash: approval.inputHash, approve: true };
  if (form === 'json') {
    const answer = await postJson(url, decision, auth(user), httpAgent);
    const record = /** @type {{ status?: string } | undefined} */ (answer.body['record']);
    return {
      ok: answer.status === 200 && record?.status === 'success',
      problem: `approve ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
      headersMs: answer.headersMs,
      totalMs: answer.totalMs,
    };
  }
  const stream = openStream(url, {
    body: decision,
    headers: auth(user),
    ...(httpAgent === undefined ? {} : { agent: httpAgent }),
  });
  await stream.ended;
  const last = stream.events.at(-1);
  return {
    ok: stream.status === 200 && last?.type === 'done' && last.status === 'success',
    problem: `approve (SSE) ${stream.status} ${stream.error ?? stream.text}; ended ${last?.type} ${last?.status}`,
    headersMs: stream.headersAt - stream.sentAt,
    firstEventMs: stream.firstEventAt - stream.sentAt,
    firstEvent: stream.events[0]?.type ?? '',
    totalMs: performance.now() - stream.sentAt,
  };
}
