import { notFound } from '../domain/errors.js';
import { dietaryNoteInput } from '../domain/schemas.js';
import type { DietaryNote, DietaryProfile, NoteKind } from '../domain/types.js';
import { parseInput } from '../domain/validate.js';
import type { ServiceEnv } from './env.js';
import { confirmMemberRead, memberScope, requireMember, type KitchenPrincipal } from './principal.js';

interface Row {
  id: string;
  kind: NoteKind;
  label: string;
  person: string | null;
  note: string | null;
}

const toNote = (r: Row): DietaryNote => ({
  id: r.id,
  kind: r.kind,
  label: r.label,
  person: r.person,
  note: r.note,
});

export interface PreferenceService {
  /** The household's allergies and preferences (who, when a note is about one person). */
  profile(principal: KitchenPrincipal): Promise<DietaryProfile>;
  add(principal: KitchenPrincipal, input: unknown): Promise<DietaryNote>;
  remove(principal: KitchenPrincipal, id: string): Promise<void>;
}

export function createPreferenceService(env: ServiceEnv): PreferenceService {
  const { db } = env;
  return {
    async profile(principal) {
      const { householdId, userId } = memberScope(principal);
      const rows = await db.query<Row>(
        `SELECT id, kind, label, person, note FROM dietary_notes WHERE household_id = $1
         AND EXISTS (SELECT 1 FROM memberships m WHERE m.household_id = $1 AND m.user_id = $2)
         ORDER BY seq`,
        [householdId, userId],
      );
      const notes = (await confirmMemberRead(db, principal, rows)).map(toNote);
      return {
        allergies: notes.filter((n) => n.kind === 'allergy'),
        preferences: notes.filter((n) => n.kind === 'preference'),
      };
    },

    async add(principal, input) {
      const { householdId } = await requireMember(db, principal);
      const note = parseInput(dietaryNoteInput, input);
      const rows = await db.query<Row>(
        `INSERT INTO dietary_notes (id, household_id, kind, label, person, note, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, kind, label, person, note`,
        [env.newId(), householdId, note.kind, note.label, note.person, note.note, env.now().toISOString()],
      );
      return toNote(rows[0] as Row);
    },

    async remove(principal, id) {
      const { householdId } = await requireMember(db, principal);
      const rows = await db.query(
        'DELETE FROM dietary_notes WHERE id = $1 AND household_id = $2 RETURNING id',
        [id, householdId],
      );
      if (rows.length === 0) throw notFound('dietary note');
    },
  };
}
