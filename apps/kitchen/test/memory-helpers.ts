import { pino } from 'pino';
import { createReinsServer } from '@reins/server';
import type { MessageEvent, Model, Principal, RunEvent, RunRecord } from 'reins';
import { kitchenAgent } from '../src/assistant/agent.js';
import { kitchenDemoModel } from '../src/assistant/demo/kitchen-demo-model.js';
import { toReinsPrincipal } from '../src/services/principal.js';
import { fakeNutrition } from './assistant-helpers.js';
import { START, type Harness } from './harness.js';

/** `@reins/server` with the kitchen agent (demo model by default); the principal is the session's. */
export function assistantServer(h: Harness, model: Model = kitchenDemoModel({ now: () => START })) {
  return createReinsServer({
    logger: pino({ level: 'silent' }),
    agents: { kitchen: kitchenAgent(h.services, { model, nutrition: fakeNutrition().lookup }) },
    authenticate: async (request): Promise<Principal | undefined> => {
      const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
      const session = await h.services.auth.authenticate(token);
      return session === null ? undefined : toReinsPrincipal(session.principal);
    },
  }).app;
}

export interface StopDocument {
  readonly runId: string;
  readonly record: RunRecord;
  readonly events: readonly RunEvent[];
  readonly text: string;
}

type App = ReturnType<typeof assistantServer>;

async function stop(response: Response, runId: string): Promise<StopDocument> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${response.status}: ${text}`);
  const body = JSON.parse(text) as { record: RunRecord; events: RunEvent[] };
  return { runId, record: body.record, events: body.events, text };
}

/** POST /v1/runs as the token's user (JSON: up to the run's end or pause). */
export async function askOverHttp(app: App, token: string, input: string): Promise<StopDocument> {
  const response = await app.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ agent: 'kitchen', input }),
  });
  return stop(response, response.headers.get('x-run-id') ?? '');
}

/** POST /v1/runs/:id/approve with the pending approval's actId and inputHash. */
export async function answerApproval(
  app: App,
  token: string,
  run: StopDocument,
  approve: boolean,
): Promise<StopDocument> {
  const approval = run.events.find((e) => e.type === 'approval');
  if (approval?.type !== 'approval') throw new Error('the run has no pending approval');
  const response = await app.request(`/v1/runs/${run.runId}/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ actId: approval.actId, inputHash: approval.inputHash, approve }),
  });
  return stop(response, run.runId);
}

/** The answer's structured data (`reply`, `cards`, `memories`) from the message event. */
export function answerOf(run: StopDocument): { reply: string; memories?: { id: string; text: string }[] } {
  const message = run.events.find((e): e is MessageEvent => e.type === 'message');
  if (message === undefined) throw new Error(`no answer: ${run.text.slice(0, 400)}`);
  return message.data as { reply: string; memories?: { id: string; text: string }[] };
}
