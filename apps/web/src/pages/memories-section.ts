import { api, draftKey } from '../api.js';
import { removeButton } from './confirm.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import { errorLine, field } from './common.js';

interface HouseholdMemory {
  readonly id: string;
  readonly text: string;
  readonly createdAt: string;
}

/**
 * The household's memories on the preferences page: every member sees what the assistant
 * remembers for them, deletes what is wrong, and adds one by hand (`/api/memories`).
 */
export function memoriesSection(): HTMLElement {
  const list = h('ul', { class: 'items', 'data-testid': 'memories' });
  const error = errorLine();
  const drafts = draftKey();

  const row = (memory: HouseholdMemory): HTMLElement =>
    h(
      'li',
      { class: 'item', 'data-testid': 'memory' },
      h('span', { class: 'item-name' }, memory.text),
      h('span', { class: 'muted' }, memory.createdAt.slice(0, 10)),
      removeButton(memory.text, async () => {
        const reply = await api('DELETE', `/api/memories/${encodeURIComponent(memory.id)}`);
        if (!reply.ok) return error.show(reply.error);
        await load();
      }),
    );

  const load = async () => {
    const reply = await api<{ memories: HouseholdMemory[] }>('GET', '/api/memories');
    if (!reply.ok) return error.show(reply.error);
    error.show(null);
    const memories = reply.data.memories;
    replace(list, memories.length === 0 ? h('li', { class: 'hint' }, t().empty) : memories.map(row));
  };

  const text = h('input', { name: 'memory', required: true });
  const form = h(
    'form',
    {
      class: 'inline-form',
      'aria-label': `${t().add} — ${t().memories}`,
      onsubmit: async (event) => {
        event.preventDefault();
        const body = { text: text.value };
        const reply = await api('POST', '/api/memories', body, { idempotencyKey: drafts.key(body) });
        if (!reply.ok) return error.show(reply.error);
        drafts.done();
        form.reset();
        await load();
      },
    },
    field('memory-text', t().memoryText, text),
    h('button', { type: 'submit' }, t().add),
  );
  void load();
  return h(
    'div',
    { class: 'memories-section' },
    h('h3', {}, t().memories),
    h('p', { class: 'hint' }, t().memoriesHint),
    error.el,
    list,
    form,
  );
}
