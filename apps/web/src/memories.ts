import { h } from './dom.js';
import { t } from './i18n.js';
import { arr, obj, str } from './run-events.js';

/**
 * "用到的记忆：婆婆不吃辣" under an answer: the household memories the run recalled. The list
 * is the answer's `memories` field, stamped by the server from the recall's observation (the
 * model cannot add one), so it is shown as is; null when the answer used none.
 */
export function renderUsedMemories(data: unknown): HTMLElement | null {
  const texts = arr(obj(data)?.['memories'])
    .map((m) => str(obj(m)?.['text']))
    .filter((text) => text !== '');
  if (texts.length === 0) return null;
  return h(
    'div',
    { class: 'used-memories', 'data-testid': 'used-memories' },
    h('span', { class: 'label label-info' }, `${t().memoriesUsed}：`),
    h(
      'ul',
      { class: 'memory-chips' },
      texts.map((text) => h('li', { class: 'memory-chip' }, text)),
    ),
  );
}
