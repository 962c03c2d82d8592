/** One step output kept in the task state. */
export interface TaskEntry {
  readonly runId: string;
  readonly stepId: string;
  readonly action: string;
  /** The checked, sanitized output the step observed. */
  readonly output: unknown;
  readonly at: number;
}

/** The task state as JSON: pass it to the next run of the same task (`taskState` option). */
export interface TaskStateSnapshot {
  readonly entries: readonly TaskEntry[];
}

/** Entries kept from earlier runs (the oldest are dropped first). */
const MAX_ENTRIES = 50;

/**
 * The task layer of state (seed 001 §2.3): the outputs of the steps run for this task, in
 * order, across runs. "Send *this* policy to Li Si" resolves "this" from here — the latest
 * output of the action that produced a policy — not from chat history.
 */
export class TaskState {
  readonly #entries: TaskEntry[];
  /** This run's completed steps by id (outputs of earlier runs are reached by action). */
  readonly #byStep = new Map<string, TaskEntry>();

  constructor(prior?: TaskStateSnapshot) {
    this.#entries = [...(prior?.entries ?? [])].slice(-MAX_ENTRIES);
  }

  record(entry: TaskEntry): void {
    this.#entries.push(entry);
    this.#byStep.set(entry.stepId, entry);
  }

  /** A step of this run that completed. */
  step(stepId: string): TaskEntry | undefined {
    return this.#byStep.get(stepId);
  }

  get completedSteps(): ReadonlySet<string> {
    return new Set(this.#byStep.keys());
  }

  /** The latest output of `action`, from this run or an earlier one. */
  latest(action: string): TaskEntry | undefined {
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const entry = this.#entries[i] as TaskEntry;
      if (entry.action === action) return entry;
    }
    return undefined;
  }

  /** The latest output of each action, newest first (what the planner is shown). */
  latestByAction(): TaskEntry[] {
    const seen = new Set<string>();
    const out: TaskEntry[] = [];
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const entry = this.#entries[i] as TaskEntry;
      if (seen.has(entry.action)) continue;
      seen.add(entry.action);
      out.push(entry);
    }
    return out;
  }

  snapshot(): TaskStateSnapshot {
    return { entries: this.#entries.slice(-MAX_ENTRIES) };
  }
}
