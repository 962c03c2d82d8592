import type { ApiError } from '../api.js';
import { h, replace } from '../dom.js';
import { t } from '../i18n.js';

/** A live region for a page's errors (screen readers announce them). */
export function errorLine(): { el: HTMLElement; show(error: ApiError | null): void } {
  const el = h('p', { class: 'error', role: 'alert', 'data-testid': 'page-error' });
  return {
    el,
    show(error) {
      // The code mapped to a sentence in the page's language (issue 19); the code stays on the element for support.
      replace(el, error === null ? '' : t().errorText(error.code));
      if (error === null) delete el.dataset['code'];
      else el.dataset['code'] = error.code;
    },
  };
}

export function field(
  id: string,
  label: string,
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
): HTMLElement {
  input.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), input);
}

export function today(): string {
  const now = new Date();
  const local = new Date(now.getTime() - now.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
