import { api } from './api.js';
import type { Me } from './types.js';

/** Who is signed in (null: nobody), refreshed after sign-in and a household switch. */
export const session: { me: Me | null } = { me: null };

export async function loadMe(): Promise<Me | null> {
  const reply = await api<Me>('GET', '/api/auth/me');
  session.me = reply.ok ? reply.data : null;
  return session.me;
}

/** Where a signed-in user starts: the fridge, or — with no household yet — the page with invitations. */
export function homePath(): string {
  return session.me !== null && session.me.households.length === 0 ? '/preferences' : '/fridge';
}
