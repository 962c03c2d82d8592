import { h } from './dom.js';
import { t } from './i18n.js';
import { modelText } from './model-text.js';
import { arr, obj, str, type WireEvent } from './run-events.js';

/**
 * The family's view of a run's steps (issue 19), under "how I got this": what was looked at in
 * plain words of the page's language and what was found — never the model's thoughts (often
 * English), tool names or JSON; the playground's detailed timeline keeps every detail. Data
 * (food and recipe names) goes through the link rule like all model and tool text.
 */
export function familyRow(event: WireEvent): HTMLElement | null {
  const row = (phase: string, status: string, text: string) =>
    h(
      'li',
      { class: `step step-${phase} status-${status}`, 'data-phase': phase, 'data-status': status },
      h('span', { class: 'step-body' }, modelText(text)),
    );
  if (event.type === 'step') {
    const phase = str(event['phase']);
    if (phase === 'act') return row('act', 'ok', t().toolStep(str(event['tool'])));
    if (phase === 'observe') {
      const o = obj(event['observation']) ?? {};
      const status = str(o['status'], 'ok');
      if (status !== 'ok')
        return row(
          'observe',
          status,
          `${t().stepFailed}: ${t().errorText(str(obj(o['error'])?.['code'], status))}`,
        );
      const found = foundText(o['result']);
      const degraded = obj(o['degraded']) === undefined ? '' : ` (${t().degraded})`;
      return row('observe', 'ok', (found === '' ? t().stepOk : found) + degraded);
    }
    return null;
  }
  if (event.type === 'approval') return row('approval', 'waiting', t().toolStep(str(event['tool'])));
  if (event.type === 'clarify') return row('clarify', 'waiting', str(event['question']));
  if (event.type === 'error') return row('error', 'error', t().errorText(str(event['code'])));
  return null;
}

/** "found 3: tomato, egg, tofu…" from the first list in a tool's result; '' when it has none. */
function foundText(result: unknown): string {
  const o = obj(result);
  const list = Array.isArray(result) ? result : Object.values(o ?? {}).find((v) => Array.isArray(v));
  if (!Array.isArray(list)) return '';
  const names = arr(list)
    .slice(0, 3)
    .map((x) => {
      const item = obj(x);
      return (
        str(item?.['name']) ||
        str(obj(item?.['recipe'])?.['name']) ||
        str(item?.['label']) ||
        str(item?.['recipeName'])
      );
    })
    .filter((n) => n !== '');
  const more = list.length > 3 ? '…' : '';
  return `${t().foundCount(list.length)}${names.length > 0 ? `: ${names.join('、')}${more}` : ''}`;
}
