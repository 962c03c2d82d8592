import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { DependencyUnavailableError, type Principal } from 'reins';
import { ApiError, notFound, unknownAgent } from '../http-error.js';
import { checkBodyText } from '../refuse-bad-text.js';
import { applyRunOptions, readRunOptions, type RunOptions } from '../run-options.js';
import { liveState, runSummary, stoppedRecord } from '../run-summary.js';
import { launchRun, runBudget, type RunRequest } from '../launch-run.js';
import { formatTraceParent, readTraceParent } from '../trace-parent.js';
import type { LimitCode } from '../quota.js';
import type { RunEntry } from '../run-registry.js';
import { readConversationId } from '../conversations.js';
import { findRun, type AppEnv, type ServerState } from '../server-state.js';
import { approveHandlers } from './approve.js';
import { answerHandlers } from './answer.js';
import { json, settled, stream, wantsStream, withTraceId } from './run-responses.js';
import { jsonBody } from '../json-body.js';

/**
 * `/v1/runs`: start a run (SSE or JSON), read it, follow it again, cancel it (paused runs
 * too), answer the approval a paused run waits for. Every lookup is by owner: another user's
 * run id gets the same 404 as an id that does not exist.
 */
export function runRoutes(s: ServerState): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post(
    '/',
    bodyLimit({
      maxSize: s.limits.maxBodyBytes,
      onError: () => {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `request body over ${s.limits.maxBodyBytes} bytes`);
      },
    }),
    async (c) => {
      const principal = c.get('principal');
      const {
        agent,
        input,
        options,
        conversationId: named,
      } = await readRunRequest(c, s.limits.maxInputChars);
      if (s.isStopPhrase(input)) return c.json(await stopRuns(s, principal));
      const definition = s.agents.get(agent);
      if (definition === undefined) throw unknownAgent(agent, s.agents.keys());

      // One fail-open budget for every limit check of this run (a black-holed Redis costs it one deadline).
      const checks = s.quota.budget();
      const limited = await s.quota.rateLimit(principal, s.clientIp(c), input, checks);
      if (!limited.ok) throw refusal(limited);

      const resolved = typeof definition === 'function' ? await definition(principal) : definition;
      const runId = s.deps.newId();
      const { limits } = applyRunOptions(resolved, options); // a bad option is a 400 before anything is stored
      const admitted = await s.quota.admit(principal.id, runId, runBudget(limits, input), checks);
      if (!admitted.ok) throw refusal(admitted);
      const gone = c.req.raw.signal;
      if (gone.aborted) {
        // The client left during admission: nothing is started, stored or charged.
        await admitted.hold.end();
        s.metrics.abandoned.inc({ stage: 'before_start' });
        return new Response(null, { status: 499 }); // nobody reads it (nginx's "client closed request")
      }
      let entry: RunEntry;
      const conversationId = named ?? s.deps.newId();
      const turn = { runId, query: input, at: s.deps.now() };
      let turnOpened = false;
      try {
        const { context } =
          s.conversations === undefined
            ? { context: undefined }
            : await s.conversations.begin(principal.id, conversationId, turn, named === undefined);
        turnOpened = s.conversations !== undefined;
        // Traced: the trace id is chosen now, stored with the run (its spans keep it across restarts):
        // the caller's, when its `traceparent` names its span (a malformed one is ignored).
        const parent = readTraceParent(c.req.header('traceparent'));
        const traceId =
          s.watch.traceIds === undefined ? undefined : (parent?.traceId ?? s.watch.traceIds.newTraceId());
        const request: RunRequest = {
          agent,
          query: input,
          principal,
          options,
          conversationId,
          context,
          ...(traceId === undefined ? {} : { traceId }),
          ...(parent === undefined ? {} : { traceParent: formatTraceParent(parent) }),
        };
        await s.durable?.create(runId, request, s.deps.now());
        // Shared mode: a worker takes it from the queue (and takes its hold over, by run id).
        entry =
          s.shared === undefined
            ? launchRun(s, resolved, request, runId, { admitted: admitted.hold })
            : await s.shared.start(s, runId, request);
        entry.traceId ??= traceId; // a queued run: a worker traces it under this id
      } catch (thrown) {
        await admitted.hold.end(); // never started: nothing is charged, the slot is free again
        if (turnOpened) {
          const why =
            thrown instanceof ApiError
              ? thrown.code
              : thrown instanceof DependencyUnavailableError
                ? 'SERVICE_UNAVAILABLE'
                : 'INTERNAL';
          await s.conversations?.notStarted(principal.id, conversationId, turn, named === undefined, why);
        }
        throw thrown;
      }
      c.header('X-Run-Id', runId);
      if (entry.traceId !== undefined) c.header('X-Trace-Id', entry.traceId); // SSE clients see it before any event
      return wantsStream(c) ? stream(c, s, entry, 0) : json(c, s, entry, 0);
    },
  );

  app.get('/:id', async (c) => {
    const entry = await findRun(s, c.req.param('id'), c.get('principal').id);
    if (entry === undefined) throw notFound();
    return jsonBody(c, withTraceId((await stoppedRecord(entry)) ?? liveState(entry), entry));
  });

  app.get('/:id/events', async (c) => {
    const entry = await findRun(s, c.req.param('id'), c.get('principal').id);
    if (entry === undefined) throw notFound();
    return stream(c, s, entry, lastEventId(c) + 1);
  });

  app.post('/:id/cancel', async (c) => {
    const entry = await findRun(s, c.req.param('id'), c.get('principal').id);
    if (entry === undefined) throw notFound();
    entry.cancel();
    await settled(entry, s.limits.stopWaitMs);
    return c.json(runSummary(entry, await stoppedRecord(entry)));
  });

  app.post('/:id/approve', ...approveHandlers(s));

  app.post('/:id/answer', ...answerHandlers(s));
  return app;
}

async function readRunRequest(
  c: Context,
  maxInputChars: number,
): Promise<{ agent: string; input: string; options: RunOptions; conversationId: string | undefined }> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ApiError(
      400,
      'INVALID_PARAMETER',
      'the body must be JSON: {"agent": string, "input": string, "maxSteps"?: number, "model"?: string, "conversationId"?: string}',
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'INVALID_PARAMETER', 'the body must be a JSON object');
  }
  checkBodyText(body); // a control character in any field (or key): 400 naming it
  const { agent, input, maxSteps, model, conversationId, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new ApiError(400, 'INVALID_PARAMETER', `unknown field(s): ${extra.join(', ')}`);
  if (typeof agent !== 'string' || agent === '')
    throw new ApiError(400, 'INVALID_PARAMETER', 'agent: a name is required');
  if (typeof input !== 'string' || input.trim() === '') {
    throw new ApiError(400, 'INVALID_PARAMETER', 'input: a non-blank string is required');
  }
  if (input.length > maxInputChars) {
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `input over ${maxInputChars} characters`);
  }
  return {
    agent,
    input,
    options: readRunOptions({ maxSteps, model }),
    conversationId: readConversationId(conversationId),
  };
}

/** A stop message: cancels the caller's live runs (no model call) and reports where each stopped. */
async function stopRuns(s: ServerState, principal: Principal) {
  // Paused ones too: they end `cancelled`. Shared mode: wherever they are held.
  const runs =
    s.shared === undefined ? s.registry.unfinished(principal.id) : await s.shared.unfinished(s, principal.id);
  for (const entry of runs) entry.cancel();
  await Promise.all(runs.map((entry) => settled(entry, s.limits.stopWaitMs)));
  s.logger.info({ user: principal.id, runIds: runs.map((r) => r.runId) }, 'stop message: runs cancelled');
  const cancelled = await Promise.all(
    runs.map(async (entry) => runSummary(entry, await stoppedRecord(entry))),
  );
  return { stopped: true, cancelled };
}

function refusal(admission: { code: LimitCode; message: string; retryAfterS: number }) {
  return new ApiError(429, admission.code, admission.message, {
    'Retry-After': String(admission.retryAfterS),
  });
}

function lastEventId(c: Context): number {
  const header = c.req.header('last-event-id');
  if (header === undefined || header.trim() === '') return -1;
  if (!/^\d{1,9}$/.test(header.trim())) {
    throw new ApiError(
      400,
      'INVALID_PARAMETER',
      'Last-Event-ID must be an event id (a non-negative integer)',
    );
  }
  return Number(header.trim());
}
