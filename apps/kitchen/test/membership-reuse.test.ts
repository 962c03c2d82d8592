import { describe, expect, it } from 'vitest';
import type { Queryable } from '../src/db/db.js';
import {
  fromReinsPrincipal,
  MEMBERSHIP_REUSE_MS,
  requireMember,
  toReinsPrincipal,
} from '../src/services/principal.js';

// Issue 17.1: a demo run's tools made a membership check each (3.4 of ~16 statements per run).
// One run (one principal object) now reuses a membership it found for MEMBERSHIP_REUSE_MS; a
// new run or request is a new object and is checked again; a refusal is never reused.

function memberships(rows: { role: string }[]): {
  q: Queryable;
  checks: () => number;
  set: (r: typeof rows) => void;
} {
  let current = rows;
  let checks = 0;
  return {
    q: {
      query: async <R extends object>() => {
        checks++;
        return current as unknown as R[];
      },
      exec: async () => undefined,
    },
    checks: () => checks,
    set: (r) => (current = r),
  };
}

describe('requireMember reuse', () => {
  it("one run's tool calls share a check for MEMBERSHIP_REUSE_MS; a new run checks again", async () => {
    const db = memberships([{ role: 'member' }]);
    let now = 1_000;
    const clock = () => now;
    const run = toReinsPrincipal({ userId: 'u1', householdId: 'h1' });
    for (let i = 0; i < 4; i++) {
      const access = await requireMember(db.q, fromReinsPrincipal(run), clock);
      expect(access).toEqual({ householdId: 'h1', userId: 'u1', role: 'member' });
    }
    expect(db.checks()).toBe(1);
    now += MEMBERSHIP_REUSE_MS; // past the window: checked again
    await requireMember(db.q, fromReinsPrincipal(run), clock);
    expect(db.checks()).toBe(2);
    const next = toReinsPrincipal({ userId: 'u1', householdId: 'h1' }); // another run
    await requireMember(db.q, fromReinsPrincipal(next), clock);
    expect(db.checks()).toBe(3);
  });

  it('a removed member is refused at the next check, and a refusal is never reused', async () => {
    const db = memberships([{ role: 'member' }]);
    let now = 0;
    const clock = () => now;
    const principal = fromReinsPrincipal(toReinsPrincipal({ userId: 'u2', householdId: 'h2' }));
    await requireMember(db.q, principal, clock);
    db.set([]);
    now += MEMBERSHIP_REUSE_MS;
    await expect(requireMember(db.q, principal, clock)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    db.set([{ role: 'owner' }]);
    await expect(requireMember(db.q, principal, clock)).resolves.toMatchObject({ role: 'owner' });
    expect(db.checks()).toBe(3);
  });

  it('another household or user on the same principal object is never the cached one', async () => {
    const db = memberships([{ role: 'member' }]);
    const run = toReinsPrincipal({ userId: 'u3', householdId: 'h3' });
    const first = fromReinsPrincipal(run);
    const other = fromReinsPrincipal({ ...run, claims: { householdId: 'h4' } });
    expect(other).not.toBe(first);
    expect((await requireMember(db.q, other)).householdId).toBe('h4');
    expect(db.checks()).toBe(1);
  });
});
