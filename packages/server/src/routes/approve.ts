import type { Context, Next } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { bodyLimit } from 'hono/body-limit';
import type { ApprovalAnswer } from 'reins';
import { MAX_APPROVAL_BODY_BYTES, readApprovalRequest } from '../approval-request.js';
import { ApiError, notFound } from '../http-error.js';
import { findRun, type AppEnv, type ServerState } from '../server-state.js';
import { acknowledged, json, stream, wantsStream } from './run-responses.js';

type Refusal = Extract<ApprovalAnswer, { ok: false }>;

/**
 * `POST /v1/runs/:id/approve` `{actId, inputHash, approve}`: answers the approval a paused
 * run waits for, as the authenticated principal (never anyone named in the body), then
 * follows the run to its next stop: SSE from the first event after the pause's `done`, or
 * the JSON document `{record, events}` of that stop with the events since the pause.
 * Refusals are the core's codes as data (see `refusalStatus`).
 */
export function approveHandlers(s: ServerState) {
  // Owner first: someone else's run is the 404 of a missing one, whatever the body.
  const owned = async (c: Context<AppEnv>, next: Next): Promise<void> => {
    if ((await findRun(s, c.req.param('id') ?? '', c.get('principal').id)) === undefined) throw notFound();
    await next();
  };
  const capped = bodyLimit({
    maxSize: MAX_APPROVAL_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `request body over ${MAX_APPROVAL_BODY_BYTES} bytes`);
    },
  });
  const approve = async (c: Context<AppEnv>): Promise<Response> => {
    const principal = c.get('principal');
    const entry = await findRun(s, c.req.param('id') ?? '', principal.id);
    if (entry === undefined) throw notFound();
    const request = await readApprovalRequest(c);
    // While paused the log ends with the pause's `done`: the continuation starts right after it.
    const from = entry.events.length;
    const decision = { by: principal, ...request };
    if (
      s.shared !== undefined &&
      (entry.feed.phase !== 'paused' || entry.run.pendingApproval === undefined)
    ) {
      // Nothing waits for an approval here: no job (a worker holding the running run could not
      // take it, and the caller waited for the reply timeout: a 503). As the embedded mode: 404.
      throw new ApiError(404, 'NOT_FOUND', 'no approval is pending for this run');
    }
    // Shared mode: the worker that takes the paused run answers it (a round trip over the queue).
    const answer =
      s.shared === undefined ? entry.run.approve(decision) : await s.shared.approve(entry, decision);
    entry.feed.poke(); // answered (or just expired): the run goes on
    const log = s.logger.child({ runId: entry.runId, agent: entry.agent });
    if (!answer.ok) {
      log.warn({ actId: request.actId, user: principal.id, code: answer.code }, 'approval refused');
      throw new ApiError(refusalStatus(answer.code), answer.code, answer.message);
    }
    log.info({ actId: answer.actId, user: principal.id, approved: answer.approved }, 'approval answered');
    await acknowledged(entry);
    c.header('X-Run-Id', entry.runId);
    return wantsStream(c) ? stream(c, s, entry, from) : json(c, s, entry, from);
  };
  return [owned, capped, approve] as const;
}

/**
 * NOT_FOUND 404 (no such pending approval: answered already, expired, never asked, another
 * act), PERMISSION_DENIED 403, INVALID_PARAMETER 400 (the input hash does not match),
 * TIMEOUT 410 (the approval expired: it can never be answered, and the run goes on without
 * the call).
 */
export function refusalStatus(code: Refusal['code']): ContentfulStatusCode {
  switch (code) {
    case 'NOT_FOUND':
      return 404;
    case 'PERMISSION_DENIED':
      return 403;
    case 'INVALID_PARAMETER':
      return 400;
    case 'TIMEOUT':
      return 410;
    default:
      return 409; // a code the core may add later: a conflict with the run's state
  }
}
