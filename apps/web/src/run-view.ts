import { renderAnswer } from './answer.js';
import { h, replace } from './dom.js';
import { t } from './i18n.js';
import { planOf, str, type PlanVersion, type WireEvent } from './run-events.js';
import { PromptChain, promptView } from './prompt-view.js';
import { timelineRow } from './timeline.js';

export interface RunViewOptions {
  /** The playground's full timeline (inputs, outputs, durations) instead of the chat's short one. */
  readonly detailed: boolean;
  /** Called with every plan version (the playground draws the graph). */
  readonly onPlan?: (plan: PlanVersion) => void;
  /** Called for a clarifying question the user can answer. */
  readonly onClarify?: (event: WireEvent) => HTMLElement | null;
  /** Called for a call waiting for the user's approval (e.g. remembering a household memory). */
  readonly onApproval?: (event: WireEvent) => HTMLElement | null;
}

/**
 * One run on screen: its steps as they arrive, the answer, and its status. Knows nothing of
 * transport: fed events one by one (live stream, JSON fallback or replay alike).
 */
export class RunView {
  readonly el: HTMLElement;
  readonly events: WireEvent[] = [];
  readonly #steps: HTMLOListElement;
  readonly #answer: HTMLElement;
  readonly #status: HTMLElement;
  readonly #notes: HTMLElement;
  readonly #options: RunViewOptions;
  /** Each model step's kept prompt (reason steps, a planner's plan versions), rebuilt from its delta. */
  readonly #prompts = new PromptChain();
  status: string | undefined;

  constructor(options: RunViewOptions) {
    this.#options = options;
    this.#steps = h('ol', { class: 'steps', 'data-testid': 'steps', 'aria-label': t().timeline });
    this.#answer = h('div', { class: 'answer-slot', 'aria-live': 'polite' });
    this.#status = h('p', { class: 'run-status', 'data-testid': 'run-status', role: 'status' });
    this.#notes = h('div', { class: 'labels' });
    // The family sees the answer and its cards first; the steps wait, collapsed, under "how I
    // got this" (issue 19). The playground shows its detailed timeline above the answer.
    this.el = options.detailed
      ? h('div', { class: 'run', 'aria-busy': 'true' }, this.#notes, this.#steps, this.#answer, this.#status)
      : h(
          'div',
          { class: 'run', 'aria-busy': 'true' },
          this.#notes,
          this.#answer,
          this.#status,
          h(
            'details',
            { class: 'how', 'data-testid': 'how' },
            h('summary', {}, t().howIGotThis),
            this.#steps,
          ),
        );
    replace(this.#status, `${t().thinking}…`);
  }

  note(text: string, testId: string): void {
    this.#notes.append(h('span', { class: 'label label-info', 'data-testid': testId }, text));
  }

  push(event: WireEvent): void {
    this.events.push(event);
    // A paused run (awaiting an answer or an approval) goes on in the same log once answered.
    if (this.status?.startsWith('awaiting_') === true && event.type !== 'done') this.resume();
    const plan = planOf(event);
    if (plan !== undefined) this.#options.onPlan?.(plan);
    if (event.type === 'message') {
      replace(this.#answer, renderAnswer(event));
      return;
    }
    if (event.type === 'clarify') {
      const extra = this.#options.onClarify?.(event);
      if (extra !== null && extra !== undefined) this.#answer.append(extra);
    }
    if (event.type === 'approval') {
      const extra = this.#options.onApproval?.(event);
      if (extra !== null && extra !== undefined) this.#answer.append(extra);
    }
    if (event.type === 'done') this.finish(str(event['status'], 'error'));
    const prompt = this.#options.detailed ? this.#prompts.next(event) : undefined;
    const row = timelineRow(event, this.#options.detailed);
    if (row !== null) this.#steps.append(row);
    if (row !== null && prompt !== undefined) row.append(promptView(prompt));
  }

  resume(): void {
    this.status = undefined;
    this.el.setAttribute('aria-busy', 'true');
    delete this.el.dataset['status'];
    delete this.#status.dataset['status'];
    replace(this.#status, `${t().thinking}…`);
  }

  /** The run's end as seen here (also when the stream broke off without a `done`). */
  finish(status: string): void {
    this.status = status;
    this.el.setAttribute('aria-busy', 'false');
    this.el.dataset['status'] = status;
    // Words for people (one language, issue 19), the status code for tools and tests.
    this.#status.dataset['status'] = status;
    replace(this.#status, t().statusLabel(status));
  }

  /** A failed request: the family reads it in the page's language; the playground gets the server's words. */
  error(code: string, message: string): void {
    const text = this.#options.detailed ? `${code}: ${message}` : t().errorText(code);
    const target = this.#options.detailed ? this.#steps : this.#answer;
    target.append(h('p', { class: 'step step-error status-error', 'data-testid': 'run-error' }, text));
  }
}
