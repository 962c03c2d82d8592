import type { AgentRun, Model, ModelRequest, ModelResult } from 'reins';

export interface RolloutOptions {
  readonly stable: Model;
  readonly candidate: Model;
  /** Share of runs sent to the candidate (default 0.05). */
  readonly share?: number;
  /** Candidate error rate (parse failures and tool errors per step) that switches it off (default 0.05). */
  readonly maxErrorRate?: number;
  /** Candidate steps seen before the rate is judged (default 20). */
  readonly minSteps?: number;
  /** Told once, when the candidate is switched off. */
  readonly onSwitchOff?: (stats: RolloutStats) => void;
  /** Injectable for tests: which runs get the candidate (default: a hash of the run id). */
  readonly assign?: (runId: string) => number;
}

export interface RolloutStats {
  readonly enabled: boolean;
  readonly candidateSteps: number;
  readonly candidateErrors: number;
  readonly errorRate: number;
  readonly switchedOffAt?: string;
}

export interface Rollout {
  /** The model to give runs: routes each run (by id, sticky) to stable or candidate. */
  readonly model: Model;
  /** Counts the candidate's parse failures and tool errors in a run's events. */
  observe(run: AgentRun): Promise<void>;
  stats(): RolloutStats;
}

/**
 * Gradual rollout (seed 003 §5.5): a share of runs goes to a candidate model or prompt
 * version; its error rate — reason steps that did not parse plus tool observations that
 * failed, per candidate step — is tracked from the runs' events, and above `maxErrorRate`
 * the candidate is switched off for every later run, once, with `onSwitchOff` told.
 */
export function gradualRollout(options: RolloutOptions): Rollout {
  const share = options.share ?? 0.05;
  const maxErrorRate = options.maxErrorRate ?? 0.05;
  const minSteps = options.minSteps ?? 20;
  const assign = options.assign ?? hashToUnit;
  const state = { enabled: true, steps: 0, errors: 0, switchedOffAt: undefined as string | undefined };
  const stats = (): RolloutStats => ({
    enabled: state.enabled,
    candidateSteps: state.steps,
    candidateErrors: state.errors,
    errorRate: state.steps === 0 ? 0 : state.errors / state.steps,
    ...(state.switchedOffAt === undefined ? {} : { switchedOffAt: state.switchedOffAt }),
  });
  const judge = (): void => {
    if (!state.enabled || state.steps < minSteps || state.errors / state.steps <= maxErrorRate) return;
    state.enabled = false;
    state.switchedOffAt = new Date().toISOString();
    options.onSwitchOff?.(stats());
  };
  // Runs routed to the candidate, by id (names can collide or be rewritten by wrappers).
  const candidateRuns = new Set<string>();
  const model: Model = {
    name: `rollout(${options.stable.name} → ${options.candidate.name})`,
    async call(request: ModelRequest): Promise<ModelResult> {
      const runId = request.runId;
      const useCandidate =
        runId !== undefined && (candidateRuns.has(runId) || (state.enabled && assign(runId) < share));
      if (useCandidate) candidateRuns.add(runId);
      const chosen = useCandidate ? options.candidate : options.stable;
      const result = await chosen.call(request);
      return result.ok ? { ...result, model: result.model ?? chosen.name } : result;
    },
  };
  return {
    model,
    stats,
    async observe(run: AgentRun): Promise<void> {
      for await (const event of run) {
        if (!candidateRuns.has(run.runId)) continue;
        if (event.type === 'error' && event.code === 'MODEL_FAILED') {
          state.steps++; // the candidate failed the call itself
          state.errors++;
        } else if (event.type === 'step' && event.phase === 'reason') {
          state.steps++;
          if (!event.parse.ok) state.errors++;
        } else if (event.type === 'step' && event.phase === 'observe' && event.observation.status !== 'ok') {
          state.errors++;
        }
      }
      candidateRuns.delete(run.runId);
      judge();
    },
  };
}

/** A run id mapped to [0, 1): the same run always lands on the same side. */
function hashToUnit(runId: string): number {
  let hash = 2166136261;
  for (let i = 0; i < runId.length; i++) hash = Math.imul(hash ^ runId.charCodeAt(i), 16777619);
  return (hash >>> 0) / 2 ** 32;
}
