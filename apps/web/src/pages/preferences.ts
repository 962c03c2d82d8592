import { api, draftKey } from '../api.js';
import { removeButton } from './confirm.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import type { DietaryNote, DietaryProfile } from '../types.js';
import { errorLine, field } from './common.js';
import { invitationsSection } from './invitations-section.js';
import { memoriesSection } from './memories-section.js';

export function preferencesPage(): HTMLElement {
  const allergies = h('ul', { class: 'items', 'data-testid': 'allergies' });
  const likes = h('ul', { class: 'items', 'data-testid': 'preferences' });
  const error = errorLine();
  const drafts = draftKey();

  const row = (note: DietaryNote): HTMLElement =>
    h(
      'li',
      { class: 'item' },
      h('span', { class: 'item-name' }, note.label),
      note.person !== null && h('span', { class: 'muted' }, note.person),
      note.note !== null && h('span', {}, note.note),
      removeButton(note.label, async () => {
        const reply = await api('DELETE', `/api/preferences/${encodeURIComponent(note.id)}`);
        if (!reply.ok) return error.show(reply.error);
        await load();
      }),
    );

  const load = async () => {
    const reply = await api<DietaryProfile>('GET', '/api/preferences');
    if (!reply.ok) return error.show(reply.error);
    error.show(null);
    const fill = (list: HTMLElement, notes: readonly DietaryNote[]) =>
      replace(list, notes.length === 0 ? h('li', { class: 'hint' }, t().empty) : notes.map(row));
    fill(allergies, reply.data.allergies);
    fill(likes, reply.data.preferences);
  };

  const kind = h(
    'select',
    { name: 'kind' },
    h('option', { value: 'allergy' }, t().allergy),
    h('option', { value: 'preference' }, t().preference),
  );
  const label = h('input', { name: 'label', required: true });
  const person = h('input', { name: 'person' });
  const note = h('input', { name: 'note' });
  const form = h(
    'form',
    {
      class: 'inline-form',
      'aria-label': `${t().add} — ${t().preferences}`,
      onsubmit: async (event) => {
        event.preventDefault();
        const body = {
          kind: kind.value,
          label: label.value,
          person: person.value.trim() === '' ? null : person.value,
          note: note.value.trim() === '' ? null : note.value,
        };
        const reply = await api('POST', '/api/preferences', body, { idempotencyKey: drafts.key(body) });
        if (!reply.ok) return error.show(reply.error);
        drafts.done();
        form.reset();
        await load();
      },
    },
    field('pref-kind', t().kind, kind),
    field('pref-label', t().label, label),
    field('pref-person', t().person, person),
    field('pref-note', t().note, note),
    h('button', { type: 'submit' }, t().add),
  );
  void load();
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'prefs-title' },
    h('h2', { id: 'prefs-title' }, t().preferences),
    error.el,
    h('h3', {}, t().allergies),
    allergies,
    h('h3', {}, t().likes),
    likes,
    form,
    memoriesSection(),
    invitationsSection(),
  );
}
