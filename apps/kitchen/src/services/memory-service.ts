import { sqlMemoryStore } from '@reins/stores';
import { pgQueryable } from '../db/pg-queryable.js';
import type { Embedder, MemoryItem } from 'reins';
import type { SqlMemoryStore } from '@reins/stores';
import { z } from 'zod';
import { notFound } from '../domain/errors.js';
import { parseInput } from '../domain/validate.js';
import type { ServiceEnv } from './env.js';
import { memberGuard, memberScope, notMember, requireMember, type KitchenPrincipal } from './principal.js';

/** One household memory as its members see it ("婆婆不吃辣", said last week). */
export interface HouseholdMemory {
  readonly id: string;
  readonly text: string;
  /** ISO time it was remembered. */
  readonly createdAt: string;
}

/** A memory recalled for a question, with how well it matched. */
export interface RecalledHouseholdMemory extends HouseholdMemory {
  readonly score: number;
  readonly via: readonly ('text' | 'trigram' | 'vector')[];
}

export const memoryInput = z.strictObject({
  text: z.string().trim().min(1, 'the memory is blank').max(500, 'at most 500 characters'),
});

export const recallInput = z.strictObject({
  query: z.string().trim().min(1).max(200),
  limit: z.number().int().min(1).max(10).optional(),
});

/**
 * Free-text memories of a household, beside its allergies and preferences: the members list,
 * add and delete them (the preferences page), the assistant recalls them (read-only) and
 * writes one only when a member approves it. The scope is `household:<id>` of the trusted
 * principal after the membership check, so no call reaches another household's memories.
 */
export interface MemoryService {
  list(principal: KitchenPrincipal): Promise<HouseholdMemory[]>;
  /** `{text}`; the same text again returns the existing memory. `by` records who asked. */
  remember(principal: KitchenPrincipal, input: unknown, runId?: string): Promise<HouseholdMemory>;
  forget(principal: KitchenPrincipal, id: string): Promise<void>;
  /** `{query, limit?}`: the household's memories relevant to the query, best first. */
  recall(principal: KitchenPrincipal, input: unknown): Promise<RecalledHouseholdMemory[]>;
}

const scopeOf = (householdId: string): string => `household:${householdId}`;

const shown = (item: MemoryItem): HouseholdMemory => ({
  id: item.id,
  text: item.text,
  createdAt: new Date(item.createdAt).toISOString(),
});

export function createMemoryService(env: ServiceEnv, embedder?: Embedder): MemoryService {
  let store: Promise<SqlMemoryStore> | undefined;
  // Opened on first use (it creates its table and pg_trgm): services are built synchronously.
  const open = (): Promise<SqlMemoryStore> => {
    store ??= sqlMemoryStore(pgQueryable(env.db), {
      table: 'kitchen_memories',
      ...(embedder === undefined ? {} : { embedder }),
    }).catch((error: unknown) => {
      store = undefined; // a failed open is retried by the next call
      throw error;
    });
    return store;
  };

  return {
    async list(principal) {
      const { householdId } = await requireMember(env.db, principal);
      return (await (await open()).list(scopeOf(householdId))).map(shown);
    },

    async remember(principal, input, runId) {
      const { householdId, userId } = await requireMember(env.db, principal);
      const { text } = parseInput(memoryInput, input);
      const source = { by: userId, ...(runId === undefined ? {} : { runId }) };
      return shown(await (await open()).remember(scopeOf(householdId), text, source));
    },

    async forget(principal, id) {
      const { householdId } = await requireMember(env.db, principal);
      if (!(await (await open()).forget(scopeOf(householdId), id))) throw notFound('memory');
    },

    async recall(principal, input) {
      // The membership check is decided by the statement that recalls (one statement, not two).
      const scope = memberScope(principal);
      let parsed: z.infer<typeof recallInput>;
      try {
        parsed = parseInput(recallInput, input);
      } catch (error) {
        await requireMember(env.db, principal); // a non-member learns nothing more, as before
        throw error;
      }
      const { query, limit } = parsed;
      const found = await (
        await open()
      ).recallIf(memberGuard(scope), scopeOf(scope.householdId), query, { limit: limit ?? 5 });
      if (found === undefined) throw notMember();
      return found.map((m) => ({ ...shown(m), score: Math.round(m.score * 1000) / 1000, via: m.via }));
    },
  };
}
