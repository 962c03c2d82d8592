import { neutralizeMarkers } from '../sanitize/user-input.js';
import type { ConversationTurn } from './conversation-store.js';

export interface HistoryBudget {
  /** The latest turns shown in full (their question, answer and task state); default 3. */
  readonly fullTurns?: number;
  /** Characters the whole context may take; older turns are summarized, then dropped; default 2 000. */
  readonly maxChars?: number;
}

export const CONTEXT_HEADER =
  'Earlier in this conversation (oldest first). Use it to understand follow-ups such as "那明天呢？" or ' +
  '"它的热量呢？" (what "it", "that one", "tomorrow" refer to); what the tools return now is still the only source of data:';

const ANSWER_CHARS = 300;
const SUMMARY_QUERY_CHARS = 40;

/**
 * What a new run of a conversation is shown of its earlier turns (seed 001 §2.3, session
 * state): the latest `fullTurns` as one JSON line each — the user's text, the final answer
 * (shortened) and the task state the turn was about (written by code from the checked
 * results) — and the older ones summarized as their questions; the whole within `maxChars`
 * (older turns give way first). `undefined` for a conversation without earlier turns.
 */
export function conversationContext(
  turns: readonly ConversationTurn[],
  budget: HistoryBudget = {},
): string | undefined {
  const earlier = turns.filter((t) => t.status !== 'running');
  if (earlier.length === 0) return undefined;
  const maxChars = budget.maxChars ?? 2_000;
  let full = Math.min(budget.fullTurns ?? 3, earlier.length);
  for (;;) {
    const text = render(earlier, full);
    if (text.length <= maxChars || full === 0)
      return text.length <= maxChars ? text : text.slice(0, maxChars);
    full--;
  }
}

function render(turns: readonly ConversationTurn[], full: number): string {
  const older = turns.slice(0, turns.length - full);
  const recent = turns.slice(turns.length - full);
  const lines = [CONTEXT_HEADER];
  if (older.length > 0) {
    // Cleaned like the recent turns (and after the cut too: it must not leave half a marker).
    const asked = older
      .map((t) => neutralizeMarkers(shorten(neutralizeMarkers(t.query).text, SUMMARY_QUERY_CHARS)).text)
      .join(' / ');
    lines.push(`- (${older.length} earlier turn(s), summarized) the user asked: ${asked}`);
  }
  for (const turn of recent) {
    lines.push(
      `- ${JSON.stringify({
        user: neutralizeMarkers(turn.query).text, // the user's words, cleaned like the query
        ...(turn.answer === undefined ? {} : { answer: shorten(turn.answer, ANSWER_CHARS) }),
        ...(turn.about === undefined ? {} : { about: turn.about }),
      })}`,
    );
  }
  return lines.join('\n');
}

function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The turns a run's context line shows, read back (the kitchen's demo model reads what a real model would). */
export function parseContextTurns(context: string): { user: string; answer?: string; about?: unknown }[] {
  if (!context.includes(CONTEXT_HEADER)) return [];
  const turns: { user: string; answer?: string; about?: unknown }[] = [];
  for (const line of context.split('\n')) {
    if (!line.startsWith('- {')) continue;
    try {
      const parsed = JSON.parse(line.slice(2)) as { user?: unknown; answer?: unknown; about?: unknown };
      if (typeof parsed.user !== 'string') continue;
      turns.push({
        user: parsed.user,
        ...(typeof parsed.answer === 'string' ? { answer: parsed.answer } : {}),
        ...(parsed.about === undefined ? {} : { about: parsed.about }),
      });
    } catch {
      // not a turn line
    }
  }
  return turns;
}
