import { h, replace } from '../dom.js';
import { t } from '../i18n.js';

/**
 * A remove button that asks first (issue 19: one tap deleted a recipe, meal or allergy): the
 * click turns it into "Remove “X”? [Yes, remove] [Cancel]" in place; only "Yes" calls `remove`.
 */
export function removeButton(name: string, remove: () => Promise<void>, text = t().remove): HTMLElement {
  const slot = h('span', { class: 'confirm-slot' });
  const button = (): HTMLElement =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'aria-label': `${t().remove} ${name}`,
        onclick: () => {
          const yes = h(
            'button',
            {
              type: 'button',
              class: 'danger',
              'data-testid': 'confirm-remove',
              onclick: () => void remove(),
            },
            t().confirmYes,
          );
          replace(
            slot,
            h(
              'span',
              { class: 'confirm', role: 'group', 'aria-label': t().confirmRemove(name) },
              h('span', {}, t().confirmRemove(name)),
              yes,
              h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => replace(slot, button()) },
                t().cancel,
              ),
            ),
          );
          yes.focus();
        },
      },
      text,
    );
  replace(slot, button());
  return slot;
}
