import type { ActionCall, DecisionParse } from '../decision/index.js';
import type { StopReason } from '../events.js';
import { actionHash, sameAction } from './action-keys.js';

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
      /** The object of a `"final": {…}` answer (checked later against the agent's answer format). */
      readonly data?: Readonly<Record<string, unknown>> | undefined;
    }
  | {
      readonly kind: 'act';
      readonly tool: string;
      readonly input: unknown;
      /** `actionHash(tool, input)`, made once per step. */
      readonly hash: number;
    }
  | {
      readonly kind: 'refuse_repeat';
      readonly tool: string;
      readonly input: unknown;
      readonly firstStep: number;
    }
  | {
      readonly kind: 'act_many';
      readonly calls: readonly PlannedCall[];
      /** The calls came through the provider's native tool-call channel. */
      readonly native: boolean;
    }
  | { readonly kind: 'stop'; readonly reason: StopReason };

/** One call of a many-call turn: run it, or refuse it (it never reaches the tool). */
export type PlannedCall =
  | {
      readonly kind: 'run';
      readonly tool: string;
      readonly input: unknown;
      readonly hash: number;
      readonly callId?: string | undefined;
    }
  | {
      readonly kind: 'refuse';
      readonly tool: string;
      readonly input: unknown;
      readonly callId?: string | undefined;
      readonly code: 'REPEATED_ACTION' | 'LIMIT_EXCEEDED' | 'INVALID_PARAMETER';
      readonly message: string;
    };

export interface TurnState {
  /** An action (tool, input, their `actionHash`) → the model step that first requested it. */
  readonly actions: { get(tool: string, input: unknown, hash: number): number | undefined };
  /** A repeated action was refused: this step is the forced final one. */
  readonly forcedFinal: boolean;
}

export const EMPTY_REPLY_TEXT = '(the model returned an empty reply)';

export function resolveTurn(
  parse: DecisionParse,
  state: TurnState,
  finalStep: boolean,
  maxCallsPerStep = Number.POSITIVE_INFINITY,
): Resolution {
  if (!parse.ok) {
    // Kept as the answer, labeled raw: never a blank reply, never a crash.
    return { kind: 'answer', text: parse.raw.trim() || EMPTY_REPLY_TEXT, format: 'raw', intent: 'answer' };
  }
  const decision = parse.value;
  switch (decision.kind) {
    case 'final':
      return {
        kind: 'answer',
        text: decision.final,
        format: 'structured',
        intent: 'answer',
        data: decision.data,
      };
    case 'ask':
      return { kind: 'answer', text: decision.ask, format: 'structured', intent: 'ask' };
    case 'action': {
      if (finalStep) return { kind: 'stop', reason: state.forcedFinal ? 'repeated_action' : 'max_steps' };
      const { action: tool, input } = decision;
      const hash = actionHash(tool, input);
      const firstStep = state.actions.get(tool, input, hash);
      if (firstStep !== undefined) return { kind: 'refuse_repeat', tool, input, firstStep };
      return { kind: 'act', tool, input, hash };
    }
    case 'actions': {
      if (finalStep) return { kind: 'stop', reason: state.forcedFinal ? 'repeated_action' : 'max_steps' };
      const native = parse.via === 'native';
      return { kind: 'act_many', calls: planCalls(decision.actions, state, maxCallsPerStep), native };
    }
  }
}

/**
 * Each call is run or refused: beyond `maxCallsPerStep`, with arguments that did not parse,
 * or repeating an earlier step's call or an earlier call of this step.
 */
function planCalls(actions: readonly ActionCall[], state: TurnState, maxCallsPerStep: number): PlannedCall[] {
  // This step's calls that run, compared as the guard compares (hash, then the same JSON).
  const thisStep: Extract<PlannedCall, { kind: 'run' }>[] = [];
  return actions.map((call, i): PlannedCall => {
    const { action: tool, input, callId } = call;
    const refuse = (
      code: Extract<PlannedCall, { kind: 'refuse' }>['code'],
      message: string,
    ): PlannedCall => ({
      kind: 'refuse',
      tool,
      input,
      callId,
      code,
      message,
    });
    if (i >= maxCallsPerStep) {
      return refuse(
        'LIMIT_EXCEEDED',
        `at most ${maxCallsPerStep} tool calls per step; this call (#${i + 1}) was not run. Ask for it again in the next step if it is still needed.`,
      );
    }
    if (call.inputError !== undefined) return refuse('INVALID_PARAMETER', `${tool}: ${call.inputError}`);
    const hash = actionHash(tool, input);
    const firstStep = state.actions.get(tool, input, hash);
    if (firstStep !== undefined) {
      return refuse(
        'REPEATED_ACTION',
        `${tool} was already called with this input at step ${firstStep}; its result was shown then.`,
      );
    }
    if (thisStep.some((run) => run.hash === hash && sameAction(tool, input, run))) {
      return refuse(
        'REPEATED_ACTION',
        `${tool} is called twice with the same input in this step; it runs once.`,
      );
    }
    const run = { kind: 'run' as const, tool, input, hash, callId };
    thisStep.push(run);
    return run;
  });
}
