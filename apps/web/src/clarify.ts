import { h } from './dom.js';
import { t } from './i18n.js';
import { modelText } from './model-text.js';
import { answerRun } from './run-client.js';
import { arr, obj, str, type WireEvent } from './run-events.js';
import type { RunView } from './run-view.js';

/**
 * A clarifying question (`clarify {questionId, question, candidates}`) as a small form: one
 * button per candidate, or a free answer. Answering resumes the run; its events continue in
 * the same view. `runId()` is read at click time (the id arrives with the response headers).
 */
export function clarifyForm(event: WireEvent, view: RunView, runId: () => string | undefined): HTMLElement {
  const questionId = str(event['questionId']);
  const status = h('p', { class: 'error', role: 'alert' });
  const free = h('input', { name: 'answer', 'aria-label': t().answer });
  const form = h('form', { class: 'clarify', 'data-testid': 'clarify' });
  const send = async (answer: string) => {
    const id = runId();
    if (id === undefined || questionId === '' || answer.trim() === '') return;
    for (const el of form.querySelectorAll('button, input')) (el as HTMLButtonElement).disabled = true;
    const outcome = await answerRun(id, { questionId, answer }, (e) => view.push(e));
    if (outcome.error !== undefined) {
      status.textContent = t().errorText(outcome.error.code);
      for (const el of form.querySelectorAll('button, input')) (el as HTMLButtonElement).disabled = false;
    }
  };
  const candidates = arr(event['candidates']).flatMap((c) => {
    const o = obj(c);
    const value = str(o?.['value']);
    return value === '' ? [] : [{ value, label: str(o?.['label'], value) }];
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void send(free.value);
  });
  form.append(
    h('p', { class: 'clarify-question' }, modelText(`${t().question}: ${str(event['question'])}`)),
    h(
      'div',
      { class: 'row' },
      candidates.map((c) =>
        h(
          'button',
          { type: 'button', class: 'secondary', onclick: () => void send(c.value) },
          modelText(c.label),
        ),
      ),
      free,
      h('button', { type: 'submit' }, t().answer),
    ),
    status,
  );
  return form;
}
