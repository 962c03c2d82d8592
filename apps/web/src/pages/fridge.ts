import { api, draftKey, etag } from '../api.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';
import { byExpiry } from '../parse-input.js';
import type { FridgeItem, Location } from '../types.js';
import { errorLine, field } from './common.js';

const LOCATIONS: readonly Location[] = ['fridge', 'freezer', 'pantry'];

function locationSelect(value: Location = 'fridge'): HTMLSelectElement {
  return h(
    'select',
    { name: 'location' },
    LOCATIONS.map((l) => h('option', { value: l, selected: l === value }, t()[`${l}_loc`])),
  );
}

export function fridgePage(): HTMLElement {
  const list = h('ul', { class: 'items', 'data-testid': 'fridge-list', 'aria-live': 'polite' });
  const error = errorLine();
  const drafts = draftKey();

  const load = async () => {
    const reply = await api<{ items: FridgeItem[] }>('GET', '/api/fridge');
    if (!reply.ok) return error.show(reply.error);
    error.show(null);
    const items = [...reply.data.items].sort(byExpiry);
    replace(list, items.length === 0 ? h('li', { class: 'hint' }, t().empty) : items.map(itemRow));
  };

  const itemRow = (item: FridgeItem): HTMLElement => {
    const soon = item.daysLeft !== null && item.daysLeft <= 2;
    const row = h(
      'li',
      { class: `item${soon ? ' soon' : ''}`, 'data-testid': 'fridge-item' },
      h('span', { class: 'item-name' }, item.name),
      h('span', {}, `${item.quantity} ${item.unit}`),
      h('span', { class: 'muted' }, t()[`${item.location}_loc`]),
      h(
        'span',
        { class: soon ? 'badge warn' : 'badge' },
        item.daysLeft === null ? t().noDate : t().daysLeft(item.daysLeft),
      ),
      h(
        'span',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            'aria-label': `${t().edit} ${item.name}`,
            onclick: () => replace(row, editForm(item)),
          },
          t().edit,
        ),
        h(
          'button',
          {
            type: 'button',
            'aria-label': `${t().useUp} ${item.name}`,
            onclick: () => replace(row, useForm(item)),
          },
          t().useUp,
        ),
      ),
    );
    return row;
  };

  /**
   * "Use up" asks how much (issue 19: one tap removed the whole item): the amount starts at all of
   * it; less than all takes that much away (`POST …/use {quantity}`), all removes the item.
   */
  const useForm = (item: FridgeItem): HTMLElement => {
    const amount = h('input', {
      name: 'quantity',
      type: 'number',
      min: '0',
      max: String(item.quantity),
      step: 'any',
      value: String(item.quantity),
      required: true,
      'data-testid': 'use-amount',
    });
    const id = `use-${item.id}`;
    const form = h(
      'form',
      {
        class: 'use-form',
        'aria-label': `${t().useUp} ${item.name}`,
        onsubmit: async (event) => {
          event.preventDefault();
          const wanted = Number(amount.value);
          if (!(wanted > 0)) return;
          const all = wanted >= item.quantity;
          // If-Match: someone else's change since this list was loaded is not used up unseen (412).
          const reply = await api(
            'POST',
            `/api/fridge/${encodeURIComponent(item.id)}/use`,
            all ? {} : { quantity: wanted },
            { ifMatch: etag(item) },
          );
          if (!reply.ok) return error.show(reply.error);
          await load();
        },
      },
      h('label', { for: id }, t().useHowMuch(item.name, item.unit)),
      amount,
      h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => (amount.value = String(item.quantity)) },
        t().useAll,
      ),
      h('button', { type: 'submit', 'data-testid': 'use-confirm' }, t().useConfirm),
      h('button', { type: 'button', class: 'secondary', onclick: () => void load() }, t().cancel),
    );
    amount.id = id;
    queueMicrotask(() => amount.select());
    return form;
  };

  const editForm = (item: FridgeItem): HTMLElement => {
    const name = h('input', { name: 'name', value: item.name, required: true });
    const quantity = h('input', {
      name: 'quantity',
      type: 'number',
      min: '0',
      step: 'any',
      value: String(item.quantity),
      required: true,
    });
    const unit = h('input', { name: 'unit', value: item.unit, required: true });
    const location = locationSelect(item.location);
    const expires = h('input', { name: 'expiresOn', type: 'date', value: item.expiresOn ?? '' });
    const prefix = `edit-${item.id}`;
    const form = h(
      'form',
      {
        class: 'inline-form',
        'aria-label': `${t().edit} ${item.name}`,
        onsubmit: async (event) => {
          event.preventDefault();
          const reply = await api(
            'PATCH',
            `/api/fridge/${encodeURIComponent(item.id)}`,
            {
              name: name.value,
              quantity: Number(quantity.value),
              unit: unit.value,
              location: location.value,
              expiresOn: expires.value === '' ? null : expires.value,
            },
            // Saved only over the version this form was opened on: else 412, nobody's edit lost.
            { ifMatch: etag(item) },
          );
          if (!reply.ok) return error.show(reply.error);
          await load();
        },
      },
      field(`${prefix}-name`, t().name, name),
      field(`${prefix}-qty`, t().quantity, quantity),
      field(`${prefix}-unit`, t().unit, unit),
      field(`${prefix}-loc`, t().location, location),
      field(`${prefix}-exp`, t().expiresOn, expires),
      h('button', { type: 'submit' }, t().save),
      h('button', { type: 'button', class: 'secondary', onclick: () => void load() }, t().cancel),
    );
    queueMicrotask(() => name.focus());
    return form;
  };

  const name = h('input', { name: 'name', required: true });
  const quantity = h('input', {
    name: 'quantity',
    type: 'number',
    min: '0',
    step: 'any',
    value: '1',
    required: true,
  });
  const unit = h('input', { name: 'unit', value: '个', required: true });
  const location = locationSelect();
  const expires = h('input', { name: 'expiresOn', type: 'date' });
  const addForm = h(
    'form',
    {
      class: 'inline-form',
      'aria-label': `${t().add} — ${t().fridge}`,
      onsubmit: async (event) => {
        event.preventDefault();
        const body = {
          name: name.value,
          quantity: Number(quantity.value),
          unit: unit.value,
          location: location.value,
          expiresOn: expires.value === '' ? null : expires.value,
        };
        const reply = await api('POST', '/api/fridge', body, { idempotencyKey: drafts.key(body) });
        if (!reply.ok) return error.show(reply.error);
        drafts.done();
        name.value = '';
        expires.value = '';
        await load();
        name.focus();
      },
    },
    field('fridge-name', t().name, name),
    field('fridge-qty', t().quantity, quantity),
    field('fridge-unit', t().unit, unit),
    field('fridge-loc', t().location, location),
    field('fridge-exp', t().expiresOn, expires),
    h('button', { type: 'submit' }, t().add),
  );
  void load();
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'fridge-title' },
    h('h2', { id: 'fridge-title' }, t().fridge),
    addForm,
    error.el,
    list,
  );
}
