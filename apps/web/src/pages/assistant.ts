import { h } from '../dom.js';
import { t } from '../i18n.js';
import { cancelRun, startRun } from '../run-client.js';
import { approvalForm } from '../approval.js';
import { clarifyForm } from '../clarify.js';
import { demoLabel } from '../answer.js';
import { withoutDemoNotice } from '../answer-text.js';
import { modelText } from '../model-text.js';
import { renderCards } from '../cards.js';
import { renderMarkdown } from '../markdown.js';
import { renderUsedMemories } from '../memories.js';
import { RunView } from '../run-view.js';
import {
  currentConversation,
  earlierTurns,
  forgetConversation,
  rememberConversation,
} from '../conversation.js';

export const ASSISTANT_AGENT = 'kitchen';

/** For tests and old proxies: `localStorage['kitchen.stream'] = 'off'` asks for the JSON answer. */
function streamingWanted(): boolean {
  try {
    return localStorage.getItem('kitchen.stream') !== 'off';
  } catch {
    return true;
  }
}

export function assistantPage(): HTMLElement {
  const log = h('div', { class: 'chat', 'data-testid': 'chat' });
  const input = h('textarea', {
    id: 'ask-input',
    name: 'question',
    placeholder: t().askPlaceholder,
    required: true,
  });
  const askButton = h('button', { type: 'submit', 'data-testid': 'ask' }, t().ask);
  const stopButton = h(
    'button',
    { type: 'button', class: 'danger', disabled: true, 'data-testid': 'stop' },
    t().stop,
  );
  let stop: (() => void) | undefined;
  stopButton.addEventListener('click', () => stop?.());

  const ask = async (question: string) => {
    log.append(h('div', { class: 'bubble user' }, question));
    let runId: string | undefined;
    const view: RunView = new RunView({
      detailed: false,
      onClarify: (event) => clarifyForm(event, view, () => runId),
      onApproval: (event) => approvalForm(event, view, () => runId),
    });
    log.append(h('div', { class: 'bubble assistant', 'data-testid': 'assistant-turn' }, view.el));
    const controller = new AbortController();
    let stopping = false;
    stop = () => {
      if (stopping) return;
      stopping = true;
      stopButton.disabled = true;
      // Cancel on the server (the stream then ends with `done {cancelled}`); closing the stream
      // would cancel it as well, so that is the fallback when the run id is not known yet.
      if (runId === undefined) controller.abort();
      else void cancelRun(runId).then((ok) => (ok ? undefined : controller.abort()));
    };
    askButton.disabled = true;
    stopButton.disabled = false;
    const conversationId = currentConversation();
    const outcome = await startRun(
      {
        agent: ASSISTANT_AGENT,
        input: question,
        ...(conversationId === undefined ? {} : { conversationId }),
      },
      {
        onEvent: (event) => {
          // The server names the conversation in `start`: the next question continues it.
          if (event.type === 'start' && typeof event['conversationId'] === 'string')
            rememberConversation(event['conversationId']);
          view.push(event);
        },
        onRunId: (id) => (runId = id),
      },
      { signal: controller.signal, stream: streamingWanted() },
    );
    if (outcome.transport === 'json' && outcome.error === undefined)
      view.note(t().streamingUnavailable, 'label-json-fallback');
    if (outcome.error !== undefined && !(stopping && outcome.error.code === 'CANCELLED'))
      view.error(outcome.error.code, outcome.error.message);
    if (view.status === undefined) view.finish(stopping ? 'cancelled' : 'error');
    stop = undefined;
    askButton.disabled = false;
    stopButton.disabled = true;
    input.focus();
  };

  const newConversation = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-testid': 'new-conversation',
      onclick: () => {
        forgetConversation();
        log.replaceChildren();
        input.focus();
      },
    },
    t().newConversation,
  );
  const form = h(
    'form',
    {
      class: 'ask-form',
      'aria-label': t().assistant,
      onsubmit: (event) => {
        event.preventDefault();
        const question = input.value.trim();
        if (question === '' || askButton.disabled) return;
        input.value = '';
        void ask(question);
      },
    },
    h('label', { for: 'ask-input' }, t().askPlaceholder),
    input,
    h('div', { class: 'row' }, askButton, stopButton, newConversation),
  );
  // Enter sends, Shift+Enter is a new line.
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  void showEarlierTurns(log);
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': 'assistant-title' },
    h('h2', { id: 'assistant-title' }, t().assistant),
    log,
    form,
  );
}

/**
 * The conversation so far (after a reload or a language switch): each turn's question and
 * answer as it showed live: a structured answer's Markdown with its cards and memories, from
 * the data the server kept with the turn; any other answer as text by the link rule.
 */
async function showEarlierTurns(log: HTMLElement): Promise<void> {
  const turns = await earlierTurns();
  if (turns.length === 0) return;
  const earlier = h('div', {
    class: 'earlier',
    'data-testid': 'earlier-turns',
    'aria-label': t().earlierInConversation,
  });
  for (const turn of turns) {
    earlier.append(h('div', { class: 'bubble user' }, turn.query));
    if (turn.answer === undefined) continue;
    // The turn keeps the text, not the run's demo flag: the demo model's own notice at its start
    // says it was a demo answer, and it shows as the one label it had live, not twice.
    const text = withoutDemoNotice(turn.answer);
    earlier.append(
      h(
        'div',
        { class: 'bubble assistant', 'data-testid': 'earlier-answer' },
        text !== turn.answer && h('div', { class: 'labels' }, demoLabel()),
        // A structured answer (it kept its data) reads as it did live: Markdown; any other as text.
        turn.answerData === undefined ? modelText(text, { links: true }) : renderMarkdown(text),
        renderUsedMemories(turn.answerData),
        renderCards(turn.answerData),
      ),
    );
  }
  log.prepend(earlier);
}
