import type { AgentRun, Model, ModelRequest, ModelResult } from 'reins';
import { Arm, type ArmStats } from './rollout-arms.js';
import { joinRoute } from './route.js';

export interface RolloutOptions {
  readonly stable: Model;
  readonly candidate: Model;
  /** Share of users (or runs, for anonymous ones) sent to the candidate (default 0.05). */
  readonly share?: number;
  /**
   * How far the candidate's error rate (failed calls, parse failures and tool errors per step)
   * may exceed the stable model's, over the window, before it is switched off (default 0.05).
   */
  readonly maxErrorMargin?: number;
  /** The last steps of each side the rates are taken over (default 50). */
  readonly window?: number;
  /** Candidate steps in the window before the rates are judged (default 20, at most `window`). */
  readonly minSteps?: number;
  /** Told once, when the candidate is switched off. */
  readonly onSwitchOff?: (stats: RolloutStats) => void;
  /** Injectable for tests: which users (runs) get the candidate (default: a hash of the key). */
  readonly assign?: (key: string) => number;
  /** Clock of `switchedOffAt` (default `Date.now`). */
  readonly now?: () => number;
}

export interface RolloutStats {
  readonly enabled: boolean;
  /** Totals since start. */
  readonly candidateSteps: number;
  readonly candidateErrors: number;
  /** The candidate's error rate over the window. */
  readonly errorRate: number;
  readonly switchedOffAt?: string;
  /** Both sides compared (success rate, average steps, latency, windowed error rate). */
  readonly arms: { readonly stable: ArmStats; readonly candidate: ArmStats };
}

/** One timed model step (a `reason` event) of an observed run, on the side that answered it. */
export interface RolloutStep {
  readonly arm: 'stable' | 'candidate';
  /** The model that answered the step (`ReasonStep.model`). */
  readonly model: string;
  readonly durationMs: number;
}

export interface Rollout {
  /** The model to give runs: routes each user (or run) to stable or candidate, sticky. */
  readonly model: Model;
  /**
   * Counts a run's steps, errors and outcome on the side that answered it, until the run ends or
   * pauses. A paused run stays on its side when it resumes; observe it again then to count the rest.
   */
  observe(run: AgentRun): Promise<void>;
  stats(): RolloutStats;
  /**
   * Tells `listener` each timed model step of the runs `observe` sees, with its side (a latency
   * histogram per side: the server's `reins_rollout_step_duration_seconds`). Returns the unsubscribe.
   */
  onStep(listener: (step: RolloutStep) => void): () => void;
}

// Runs routed but never observed (a caller that does not call `observe`) are forgotten past this.
const MAX_TRACKED_RUNS = 10_000;

/**
 * Gradual rollout (seed 003 §5.5): a share of users goes to a candidate model (sticky per
 * `request.userKey`, else per run); both sides' step outcomes are tracked from the runs'
 * events over a sliding window, and once the candidate's error rate exceeds the stable
 * model's by more than `maxErrorMargin`, the candidate is switched off for every later run,
 * once, with `onSwitchOff` told. A run already on the candidate finishes there.
 */
export function gradualRollout(options: RolloutOptions): Rollout {
  const share = options.share ?? 0.05;
  const margin = options.maxErrorMargin ?? 0.05;
  const size = options.window ?? 50;
  const minSteps = Math.min(options.minSteps ?? 20, size);
  const assign = options.assign ?? hashToUnit;
  const now = options.now ?? Date.now;
  const arms = { stable: new Arm(size), candidate: new Arm(size) };
  const state = { enabled: true, switchedOffAt: undefined as string | undefined };
  const stats = (): RolloutStats => ({
    enabled: state.enabled,
    candidateSteps: arms.candidate.steps,
    candidateErrors: arms.candidate.errors,
    errorRate: arms.candidate.windowRate,
    ...(state.switchedOffAt === undefined ? {} : { switchedOffAt: state.switchedOffAt }),
    arms: { stable: arms.stable.stats(), candidate: arms.candidate.stats() },
  });
  const judge = (): void => {
    const { candidate, stable } = arms;
    if (!state.enabled || candidate.windowSteps < minSteps) return;
    if (candidate.windowRate - stable.windowRate <= margin) return;
    state.enabled = false;
    state.switchedOffAt = new Date(now()).toISOString();
    options.onSwitchOff?.(stats());
  };
  const stepListeners = new Set<(step: RolloutStep) => void>();
  // The side of each run, by run id (names can collide or be rewritten by wrappers).
  const sides = new Map<string, 'stable' | 'candidate'>();
  const model: Model = {
    name: `rollout(${options.stable.name} → ${options.candidate.name})`,
    async call(request: ModelRequest): Promise<ModelResult> {
      const { runId } = request;
      const key = request.userKey ?? runId;
      let side = runId === undefined ? undefined : sides.get(runId);
      if (side === undefined) {
        side = state.enabled && key !== undefined && assign(key) < share ? 'candidate' : 'stable';
        if (runId !== undefined) remember(sides, runId, side);
      }
      const chosen = side === 'candidate' ? options.candidate : options.stable;
      const result = await chosen.call(request);
      if (!result.ok) return result;
      return {
        ...result,
        model: result.model ?? chosen.name,
        route: joinRoute(`rollout ${side}`, result.route),
      };
    },
  };
  return {
    model,
    stats,
    async observe(run: AgentRun): Promise<void> {
      let paused = false;
      for await (const event of run) {
        if (event.type === 'done') paused = event.status.startsWith('awaiting_');
        const side = sides.get(run.runId);
        if (side === undefined) continue;
        arms[side].see(event);
        if (event.type !== 'step' || event.phase !== 'reason') continue;
        const step = { arm: side, model: event.model, durationMs: event.durationMs };
        for (const listener of stepListeners) {
          try {
            listener(step);
          } catch {
            // A listener's failure (a metric refusing a value) must not stop the counting.
          }
        }
      }
      // A paused run keeps its side: when it resumes, it goes on with the model it started on
      // (its steps after the resume are counted by observing it again).
      if (!paused) sides.delete(run.runId);
      judge();
    },
    onStep(listener) {
      stepListeners.add(listener);
      return () => stepListeners.delete(listener);
    },
  };
}

function remember(
  sides: Map<string, 'stable' | 'candidate'>,
  runId: string,
  side: 'stable' | 'candidate',
): void {
  sides.set(runId, side);
  if (sides.size > MAX_TRACKED_RUNS) {
    const oldest = sides.keys().next();
    if (oldest.done !== true) sides.delete(oldest.value);
  }
}

/** A key mapped to [0, 1): the same user (run) always lands on the same side. */
function hashToUnit(key: string): number {
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return (hash >>> 0) / 2 ** 32;
}
