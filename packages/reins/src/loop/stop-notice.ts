import type { StopReason } from '../events.js';
import type { RunLimits } from '../limits.js';

/** The user-facing explanation of a stop: which limit, in words. */
export function stopNotice(reason: StopReason, limits: RunLimits): string {
  switch (reason) {
    case 'max_steps':
      return `Stopped: the step limit (${limits.maxSteps} model steps) was reached before a final answer.`;
    case 'repeated_action':
      return 'Stopped: the model repeated an action it had already taken and gave no final answer.';
    case 'deadline':
      return `Stopped: the run's deadline (${limits.deadlineMs} ms) passed before a final answer.`;
    case 'invalid_plan':
      return 'Stopped: the plan was still invalid after the re-plans allowed, so nothing was run.';
    case 'unanswered':
      return 'Stopped: a question to the user was needed and could not be asked or was not answered in time.';
    case 'outcome_unknown':
      return 'Stopped: the server restarted while a call that may change something was running. It was not run again, because it may already have taken effect: a person should check its outcome before trying again.';
    case 'interrupted':
      return 'Stopped: the server restarted while this run was going on, and resuming interrupted runs is turned off. Nothing after the last recorded step was done; ask again to start over.';
  }
}
