import { authHeaders } from './api.js';
import { h } from './dom.js';
import { t } from './i18n.js';
import { canStream, readRunResponse } from './run-client.js';
import { str, type WireEvent } from './run-events.js';
import type { RunView } from './run-view.js';

/** What the user is asked to approve, in words: "记住：婆婆不吃辣" for a memory, else the tool and input. */
function describe(event: WireEvent): string {
  const input = event['input'];
  const text =
    typeof input === 'object' && input !== null ? (input as Record<string, unknown>)['text'] : undefined;
  if (str(event['tool']) === 'remember_memory' && typeof text === 'string') return t().approveRemember(text);
  return `${str(event['tool'])} ${JSON.stringify(input)}`;
}

/**
 * A pending approval (`approval {actId, inputHash, tool, input}`) as two buttons. The answer
 * (`POST /v1/runs/:id/approve`) is bound to the exact input shown (its hash); the resumed run's
 * events continue in the same view. `runId()` is read at click time.
 */
export function approvalForm(event: WireEvent, view: RunView, runId: () => string | undefined): HTMLElement {
  const status = h('p', { class: 'error', role: 'alert' });
  const box = h('div', { class: 'approval', 'data-testid': 'approval' });
  const send = async (approve: boolean) => {
    const id = runId();
    if (id === undefined) return;
    for (const button of box.querySelectorAll('button')) button.disabled = true;
    try {
      const response = await fetch(`/v1/runs/${encodeURIComponent(id)}/approve`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: canStream() ? 'text/event-stream' : 'application/json',
          ...authHeaders(),
        },
        body: JSON.stringify({ actId: str(event['actId']), inputHash: str(event['inputHash']), approve }),
      });
      const outcome = await readRunResponse(response, id, (e) => view.push(e));
      if (outcome.error === undefined) return box.remove();
      status.textContent = t().errorText(outcome.error.code);
    } catch (error) {
      status.textContent = String(error);
    }
    for (const button of box.querySelectorAll('button')) button.disabled = false;
  };
  box.append(
    h('p', { class: 'approval-question' }, describe(event)),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', 'data-testid': 'approve', onclick: () => void send(true) }, t().approve),
      h(
        'button',
        { type: 'button', class: 'secondary', 'data-testid': 'decline', onclick: () => void send(false) },
        t().decline,
      ),
    ),
    status,
  );
  return box;
}
