import { withoutDemoNotice } from './answer-text.js';
import { renderCards } from './cards.js';
import { h } from './dom.js';
import { t } from './i18n.js';
import { renderMarkdown } from './markdown.js';
import { renderUsedMemories } from './memories.js';
import { modelText } from './model-text.js';
import { arr, obj, str, type WireEvent } from './run-events.js';

/**
 * A `message` event as the user sees it: the text as sanitized Markdown, the labels it
 * deserves (demo mode, raw/unstructured, degraded) and, for a structured answer, its action
 * cards. A raw answer is shown as plain preformatted text: what the model wrote, except that a
 * web address of another site shows as its host only (`model-text.ts`).
 */
export function renderAnswer(message: WireEvent): HTMLElement {
  const format = str(message['format'], 'structured');
  // The demo label says it once; the notice the demo model writes into its text (for API and
  // CLI readers) would say it twice here.
  const text = message['demo'] === true ? withoutDemoNotice(str(message['text'])) : str(message['text']);
  const degraded = arr(message['degraded']);
  const labels = h(
    'div',
    { class: 'labels' },
    message['demo'] === true && demoLabel(),
    format === 'raw' && h('span', { class: 'label label-raw', 'data-testid': 'label-raw' }, t().rawAnswer),
    degraded.length > 0 &&
      h(
        'span',
        { class: 'label label-degraded', 'data-testid': 'label-degraded' },
        `${t().degraded}: ${degraded
          .map((d) => {
            const o = obj(d);
            return `${str(o?.['tool'])} → ${str(o?.['fallback'])} (${str(o?.['lost'])})`;
          })
          .join('; ')}`,
      ),
  );
  const body =
    format === 'raw'
      ? h('pre', { class: 'raw-text', 'data-testid': 'answer-text' }, modelText(text))
      : withTestId(renderMarkdown(text));
  return h(
    'div',
    { class: `answer answer-${format === 'raw' ? 'raw' : 'structured'}`, 'data-testid': 'answer' },
    labels.childElementCount > 0 && labels,
    body,
    format === 'raw' ? null : renderUsedMemories(message['data']),
    format === 'raw' ? null : renderCards(message['data']),
  );
}

/** The one demo-mode label an answer carries (live, or restored from a conversation). */
export function demoLabel(): HTMLElement {
  return h('span', { class: 'label label-demo', 'data-testid': 'label-demo' }, t().demoMode);
}

function withTestId(el: HTMLElement): HTMLElement {
  el.setAttribute('data-testid', 'answer-text');
  return el;
}
