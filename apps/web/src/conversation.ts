import { api } from './api.js';
import { session } from './state.js';

/**
 * The assistant's conversation in this browser: its id is kept per user in localStorage, so a
 * reload or a language switch continues it (the server keeps the turns); "new conversation"
 * forgets the id here (the old one stays listed on the server until its TTL).
 */
const key = (): string | undefined => {
  const user = session.me?.user.id;
  return user === undefined ? undefined : `kitchen.conversation.${user}`;
};

export function currentConversation(): string | undefined {
  const k = key();
  if (k === undefined) return undefined;
  try {
    return localStorage.getItem(k) ?? undefined;
  } catch {
    return undefined;
  }
}

export function rememberConversation(id: string): void {
  const k = key();
  if (k === undefined) return;
  try {
    localStorage.setItem(k, id);
  } catch {
    // storage off: the conversation lasts for this page only
  }
}

export function forgetConversation(): void {
  const k = key();
  if (k === undefined) return;
  try {
    localStorage.removeItem(k);
  } catch {
    // nothing kept
  }
}

export interface EarlierTurn {
  readonly query: string;
  readonly answer?: string;
  readonly status: string;
  /** The structured answer's data (`{reply, cards, memories}`) the server kept with the turn. */
  readonly answerData?: unknown;
}

/** The turns of the current conversation from the server; none (and the id forgotten) when it is gone. */
export async function earlierTurns(): Promise<readonly EarlierTurn[]> {
  const id = currentConversation();
  if (id === undefined) return [];
  const reply = await api<{ turns: EarlierTurn[] }>('GET', `/v1/conversations/${encodeURIComponent(id)}`);
  if (!reply.ok) {
    if (reply.error.status === 404) forgetConversation();
    return [];
  }
  return reply.data.turns;
}
