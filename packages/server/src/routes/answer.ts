import type { Context, Next } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { bodyLimit } from 'hono/body-limit';
import type { ClarifyAnswerResult } from 'reins';
import { MAX_ANSWER_BODY_BYTES, readAnswerRequest } from '../answer-request.js';
import { ApiError, notFound } from '../http-error.js';
import { findRun, type AppEnv, type ServerState } from '../server-state.js';
import { acknowledged, json, stream, wantsStream } from './run-responses.js';

type Refusal = Extract<ClarifyAnswerResult, { ok: false }>;

/**
 * `POST /v1/runs/:id/answer` `{questionId, answer}`: answers the question a paused run
 * (`awaiting_input`) waits for, as the authenticated principal, then follows the run to its
 * next stop — SSE from the first event after the pause's `done`, or the JSON document
 * `{record, events}` — exactly like `/approve`. 404: no such run (or someone else's), or
 * another question; 400: a bad body; 409: the run is not waiting for an answer; 410: the
 * question expired.
 */
export function answerHandlers(s: ServerState) {
  const owned = async (c: Context<AppEnv>, next: Next): Promise<void> => {
    if ((await findRun(s, c.req.param('id') ?? '', c.get('principal').id)) === undefined) throw notFound();
    await next();
  };
  const capped = bodyLimit({
    maxSize: MAX_ANSWER_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `request body over ${MAX_ANSWER_BODY_BYTES} bytes`);
    },
  });
  const answer = async (c: Context<AppEnv>): Promise<Response> => {
    const principal = c.get('principal');
    const entry = await findRun(s, c.req.param('id') ?? '', principal.id);
    if (entry === undefined) throw notFound();
    const request = await readAnswerRequest(c);
    const from = entry.events.length;
    const answer = { questionId: request.questionId, value: request.answer, by: principal };
    if (entry.feed.phase !== 'paused' || entry.run.pendingQuestion === undefined) {
      // A question that expired is told so (410), as one answered late (in memory: the run
      // remembers its last expired question; a queued run's worker is not asked for that).
      const late = s.shared === undefined ? entry.run.answer(answer) : undefined;
      if (late?.ok === false && late.code === 'TIMEOUT') throw new ApiError(410, 'TIMEOUT', late.message);
      throw new ApiError(409, 'CONFLICT', 'the run is not waiting for an answer');
    }
    const result = s.shared === undefined ? entry.run.answer(answer) : await s.shared.answer(entry, answer);
    entry.feed.poke();
    const log = s.logger.child({ runId: entry.runId, agent: entry.agent });
    if (!result.ok) {
      log.warn({ questionId: request.questionId, user: principal.id, code: result.code }, 'answer refused');
      throw new ApiError(answerRefusalStatus(result.code), result.code, result.message);
    }
    log.info({ questionId: result.questionId, user: principal.id }, 'question answered');
    await acknowledged(entry);
    c.header('X-Run-Id', entry.runId);
    return wantsStream(c) ? stream(c, s, entry, from) : json(c, s, entry, from);
  };
  return [owned, capped, answer] as const;
}

/** NOT_FOUND 404 (another question), INVALID_PARAMETER 400, TIMEOUT 410 (expired), else 409. */
export function answerRefusalStatus(code: Refusal['code']): ContentfulStatusCode {
  switch (code) {
    case 'NOT_FOUND':
      return 404;
    case 'INVALID_PARAMETER':
      return 400;
    case 'TIMEOUT':
      return 410;
    case 'PERMISSION_DENIED':
      return 403;
    default:
      return 409;
  }
}
