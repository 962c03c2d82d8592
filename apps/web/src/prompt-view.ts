import { h } from './dom.js';
import { t } from './i18n.js';
import { modelText } from './model-text.js';
import { arr, num, obj, str, type WireEvent } from './run-events.js';

/** One message of a step's kept prompt, as the page reads it. */
export interface PromptLine {
  readonly role: string;
  readonly content: string;
  readonly tokens: number;
  /** An assistant turn's native tool calls (name and arguments as text). */
  readonly calls: readonly string[];
}

export interface StepPrompt {
  readonly messages: readonly PromptLine[];
  readonly tokens: number;
  readonly tokensFrom: string;
}

/**
 * Rebuilds each model step's kept prompt from its delta (`prompt.parts`: messages, and
 * `{same, count}` runs of the previous kept prompt's messages; see `PromptSnapshot` in
 * reins), fed the run's events in order. Model steps are `reason` steps and, in plan runs,
 * the plan versions a model wrote (`plan` with a `model`; a version made by code is none).
 * Read defensively: a run it cannot resolve (a log cut short) gives no prompt, never a wrong one.
 */
export class PromptChain {
  #previous: PromptLine[] | undefined;

  next(event: WireEvent): StepPrompt | undefined {
    if (!isModelStep(event)) return undefined;
    const prompt = obj(event['prompt']);
    const messages = prompt === undefined ? undefined : this.#expand(arr(prompt['parts']));
    this.#previous = messages;
    if (prompt === undefined || messages === undefined) return undefined;
    const tokens = num(prompt['tokens']) ?? messages.reduce((n, m) => n + m.tokens, 0);
    return { messages, tokens, tokensFrom: str(prompt['tokensFrom'], 'estimate') };
  }

  #expand(parts: readonly unknown[]): PromptLine[] | undefined {
    const out: PromptLine[] = [];
    for (const raw of parts) {
      const part = obj(raw);
      if (part === undefined) return undefined;
      const same = num(part['same']);
      if (same !== undefined) {
        const count = num(part['count']) ?? 0;
        const previous = this.#previous;
        if (previous === undefined || same < 0 || same + count > previous.length) return undefined;
        out.push(...previous.slice(same, same + count));
        continue;
      }
      const calls = arr(part['toolCalls']).map((c) => {
        const call = obj(c) ?? {};
        const args = call['arguments'];
        return `${str(call['name'])}(${typeof args === 'string' ? args : JSON.stringify(args ?? {})})`;
      });
      out.push({
        role: str(part['role'], '?'),
        content: str(part['content']),
        tokens: num(part['tokens']) ?? 0,
        calls,
      });
    }
    return out;
  }
}

function isModelStep(event: WireEvent): boolean {
  if (event.type !== 'step') return false;
  const phase = event['phase'];
  return phase === 'reason' || (phase === 'plan' && typeof event['model'] === 'string');
}

/** The folded "prompt" view under a model step: every message with its role, tokens and text. */
export function promptView(prompt: StepPrompt): HTMLElement {
  const texts = t();
  const total = texts.promptTokens(prompt.tokens, prompt.tokensFrom === 'usage');
  return h(
    'details',
    { class: 'prompt', 'data-testid': 'prompt' },
    h('summary', {}, `${texts.promptSent} · ${texts.promptMessages(prompt.messages.length)} · ${total}`),
    h(
      'ol',
      { class: 'prompt-messages' },
      prompt.messages.map((message) =>
        h(
          'li',
          { class: `prompt-message prompt-${message.role}`, 'data-role': message.role },
          h('span', { class: 'prompt-role' }, texts.promptRole(message.role)),
          h('span', { class: 'prompt-tokens' }, texts.promptTokens(message.tokens, false)),
          h('pre', {}, modelText(message.content)),
          message.calls.length > 0 &&
            h('pre', { class: 'prompt-calls' }, modelText(message.calls.join('\n'))),
        ),
      ),
    ),
  );
}
