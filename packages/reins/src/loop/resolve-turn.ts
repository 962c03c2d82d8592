import type { DecisionParse } from '../decision/index.js';
import type { StopReason } from '../events.js';
import { canonicalJson } from '../util/canonical-json.js';

/**
 * Where a model step leads. Decided here and only here, so every limit that depends on the
 * decision (last step, repeated action, unparseable text) lives in one function.
 */
export type Resolution =
  | {
      readonly kind: 'answer';
      readonly text: string;
      readonly format: 'structured' | 'raw';
      readonly intent: 'answer' | 'ask';
    }
  | { readonly kind: 'act'; readonly tool: string; readonly input: unknown; readonly key: string }
  | {
      readonly kind: 'refuse_repeat';
      readonly tool: string;
      readonly input: unknown;
      readonly firstStep: number;
    }
  | { readonly kind: 'stop'; readonly reason: StopReason };

export interface TurnState {
  /** Canonical action key → the model step that first requested it (a `Map` will do). */
  readonly actions: { get(key: string): number | undefined };
  /** A repeated action was refused: this step is the forced final one. */
  readonly forcedFinal: boolean;
}

export const EMPTY_REPLY_TEXT = '(the model returned an empty reply)';

export function resolveTurn(parse: DecisionParse, state: TurnState, finalStep: boolean): Resolution {
  if (!parse.ok) {
    // Kept as the answer, labeled raw: never a blank reply, never a crash.
    return { kind: 'answer', text: parse.raw.trim() || EMPTY_REPLY_TEXT, format: 'raw', intent: 'answer' };
  }
  const decision = parse.value;
  switch (decision.kind) {
    case 'final':
      return { kind: 'answer', text: decision.final, format: 'structured', intent: 'answer' };
    case 'ask':
      return { kind: 'answer', text: decision.ask, format: 'structured', intent: 'ask' };
    case 'action': {
      if (finalStep) return { kind: 'stop', reason: state.forcedFinal ? 'repeated_action' : 'max_steps' };
      const key = actionKey(decision.action, decision.input);
      const firstStep = state.actions.get(key);
      if (firstStep !== undefined) {
        return { kind: 'refuse_repeat', tool: decision.action, input: decision.input, firstStep };
      }
      return { kind: 'act', tool: decision.action, input: decision.input, key };
    }
  }
}

/** Same tool and canonically equal input (key order ignored) give the same key. */
export function actionKey(tool: string, input: unknown): string {
  return `${tool}\u0000${canonicalJson(input)}`;
}
