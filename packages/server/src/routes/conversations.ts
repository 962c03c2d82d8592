import { Hono } from 'hono';
import { ApiError, notFound } from '../http-error.js';
import type { AppEnv, ServerState } from '../server-state.js';
import { readConversationId } from '../conversations.js';
import { settled } from './run-responses.js';

/**
 * `/v1/conversations`: the caller's own conversations, newest first (`?limit`, default 20, at
 * most 100); one with its turns; `DELETE` forgets it and the runs that were its turns.
 * Someone else's conversation is the 404 of one that does not exist.
 */
export function conversationRoutes(s: ServerState): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const conversations = (): NonNullable<ServerState['conversations']> => {
    if (s.conversations === undefined) throw notFound();
    return s.conversations;
  };

  app.get('/', async (c) => {
    const limit = readLimit(c.req.query('limit'));
    const list = await conversations().store.list(c.get('principal').id, s.deps.now(), limit);
    return c.json({ conversations: list });
  });

  app.get('/:id', async (c) => {
    const id = readConversationId(c.req.param('id')) as string;
    const found = await conversations().store.get(id, c.get('principal').id, s.deps.now());
    if (found === undefined) throw notFound('conversation');
    return c.json(found);
  });

  app.delete('/:id', async (c) => {
    const ownerId = c.get('principal').id;
    const id = readConversationId(c.req.param('id')) as string;
    const store = conversations().store;
    const found = await store.get(id, ownerId, s.deps.now());
    if (found === undefined) throw notFound('conversation');
    // Its runs still going are cancelled first, and their last events stored, before their
    // rows go (a run writing to a deleted row would retry for ever).
    const dropped = found.turns.flatMap((turn) => s.registry.forget(turn.runId, ownerId) ?? []);
    await Promise.all(dropped.map((entry) => settled(entry, s.limits.stopWaitMs)));
    if (!(await store.delete(id, ownerId))) throw notFound('conversation');
    const runs = (await s.durable?.store.deleteConversation(id, ownerId)) ?? 0;
    return c.json({ deleted: true, conversationId: id, turns: found.turns.length, runs });
  });

  return app;
}

function readLimit(raw: string | undefined): number {
  if (raw === undefined) return 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new ApiError(400, 'INVALID_PARAMETER', 'limit: 1–100');
  return n;
}
