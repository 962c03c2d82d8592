import type { Context } from 'hono';
import { MAX_ANSWER_CHARS } from 'reins';
import { ApiError } from './http-error.js';
import { checkBodyText } from './refuse-bad-text.js';

/** `POST /v1/runs/:id/answer`: which question, and the answer (a candidate's value or free text). */
export interface AnswerRequest {
  readonly questionId: string;
  readonly answer: string;
}

/** Bodies over this are refused (413) while being read. */
export const MAX_ANSWER_BODY_BYTES = 4_096;

const QUESTION_ID = /^[\w-]{1,128}$/;

/**
 * Reads the body strictly: a JSON object with exactly `questionId` (the `clarify` event's)
 * and `answer` (a non-blank string); unknown fields are refused. Who answers is never read
 * from the body: it is the authenticated principal.
 */
export async function readAnswerRequest(c: Context): Promise<AnswerRequest> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw invalid('the body must be JSON: {"questionId": string, "answer": string}');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('the body must be a JSON object');
  checkBodyText(body); // a control character in any field (or key): 400 naming it
  const { questionId, answer, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw invalid(`unknown field(s): ${extra.join(', ')}`);
  if (typeof questionId !== 'string' || !QUESTION_ID.test(questionId)) {
    throw invalid('questionId: the questionId of the clarify event is required');
  }
  if (typeof answer !== 'string' || answer.trim() === '' || answer.length > MAX_ANSWER_CHARS) {
    throw invalid(`answer: a non-blank string of at most ${MAX_ANSWER_CHARS} characters is required`);
  }
  return { questionId, answer };
}

const invalid = (message: string): ApiError => new ApiError(400, 'INVALID_PARAMETER', message);
