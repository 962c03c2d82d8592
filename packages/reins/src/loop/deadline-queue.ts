import type { RunDeps } from '../util/deps.js';

/**
 * A run's deadline as an entry in the queue of every deadline of the same length on the same
 * clock and timers: one timer, for the earliest, instead of a timer per run. A Node `Timeout`
 * with its callback is ~200 bytes per run in flight and arming one ~1 µs, for a deadline that
 * almost never fires. The entries are the runs' own objects (`RunAbort` extends this class):
 * no object per run. Fields, not `#private`: the queue links them.
 */
export abstract class QueuedDeadline {
  /** When the deadline passes, on its queue's clock (`deps.now()`). */
  deadlineDue = 0;
  deadlinePrev: QueuedDeadline | undefined = undefined;
  deadlineNext: QueuedDeadline | undefined = undefined;
  /** The queue this deadline waits in; `undefined` once it passed or was cleared. */
  deadlineQueue: DeadlineQueue | undefined = undefined;

  /** The deadline passed (called once, from the queue's timer). */
  abstract deadlinePassed(): void;

  /** Starts the deadline: `deadlinePassed` after `ms` from `now` (`deps`' clock and timers), unless cleared first. */
  startDeadline(deps: RunDeps, ms: number, now: number): void {
    queueFor(deps, ms).add(this, now);
  }

  clearDeadline(): void {
    this.deadlineQueue?.remove(this);
  }
}

/** The deadlines of one length, in the order they pass; its timer is set for the first. */
class DeadlineQueue {
  #first: QueuedDeadline | undefined;
  #last: QueuedDeadline | undefined;
  #timer: unknown;
  #armed = false;
  /** When the armed timer is due (what it fires for, whatever the clock reads then). */
  #armedFor = 0;
  /** The global `setTimeout` when the timer was set: a test's fake timers may come and go. */
  #armedWith: unknown;
  #firing = false;
  readonly #fire = (): void => this.#expire();

  constructor(
    private readonly deps: RunDeps,
    private readonly ms: number,
  ) {}

  add(entry: QueuedDeadline, now: number): void {
    const due = now + this.ms;
    entry.deadlineDue = due;
    entry.deadlineQueue = this;
    // Appended: the clock does not go backwards, so the queue stays in order (searched from
    // its end otherwise, which a clock that is injected may need).
    let before = this.#last;
    while (before !== undefined && before.deadlineDue > due) before = before.deadlinePrev;
    const after = before === undefined ? this.#first : before.deadlineNext;
    entry.deadlinePrev = before;
    entry.deadlineNext = after;
    if (before === undefined) this.#first = entry;
    else before.deadlineNext = entry;
    if (after === undefined) this.#last = entry;
    else after.deadlinePrev = entry;
    if (this.#armed && this.#armedWith !== globalThis.setTimeout) {
      // Set on timers that are gone (fake ones uninstalled, or installed since): set it again
      // on today's, for the first deadline, or no deadline of this length would ever pass.
      this.deps.clearTimer(this.#timer);
      this.#armed = false;
      const first = this.#first as QueuedDeadline;
      if (!this.#firing) this.#arm(first.deadlineDue, Math.max(0, first.deadlineDue - now));
    } else if (!this.#armed && !this.#firing) this.#arm(due, this.ms);
  }

  remove(entry: QueuedDeadline): void {
    const { deadlinePrev: before, deadlineNext: after } = entry;
    if (before === undefined) this.#first = after;
    else before.deadlineNext = after;
    if (after === undefined) this.#last = before;
    else after.deadlinePrev = before;
    entry.deadlinePrev = undefined;
    entry.deadlineNext = undefined;
    entry.deadlineQueue = undefined;
    // Empty: no timer left behind. Otherwise the timer stays set; if it was for this entry,
    // it fires early for the next one and is set again.
    if (this.#first === undefined && this.#armed) {
      this.#armed = false;
      this.deps.clearTimer(this.#timer);
    }
  }

  #arm(due: number, ms: number): void {
    this.#armed = true;
    this.#armedFor = due;
    this.#armedWith = globalThis.setTimeout;
    this.#timer = this.deps.setTimer(this.#fire, ms);
  }

  /** The timer fired: every deadline due by now (or by the time it was set for) passes. */
  #expire(): void {
    this.#armed = false;
    this.#firing = true;
    try {
      const now = Math.max(this.deps.now(), this.#armedFor);
      for (let entry = this.#first; entry !== undefined && entry.deadlineDue <= now; entry = this.#first) {
        this.remove(entry);
        entry.deadlinePassed();
      }
    } finally {
      this.#firing = false;
      const next = this.#first;
      if (next !== undefined && !this.#armed) {
        this.#arm(next.deadlineDue, Math.max(0, next.deadlineDue - this.deps.now()));
      }
    }
  }
}

/** The queues of one clock: by deadline length. */
const queues = new WeakMap<RunDeps, Map<number, DeadlineQueue>>();
// The last queue asked for: runs of one configuration ask for the same one.
let lastDeps: RunDeps | undefined;
let lastMs = 0;
let lastQueue: DeadlineQueue | undefined;

function queueFor(deps: RunDeps, ms: number): DeadlineQueue {
  if (deps === lastDeps && ms === lastMs && lastQueue !== undefined) return lastQueue;
  let byLength = queues.get(deps);
  if (byLength === undefined) queues.set(deps, (byLength = new Map()));
  let queue = byLength.get(ms);
  if (queue === undefined) byLength.set(ms, (queue = new DeadlineQueue(deps, ms)));
  lastDeps = deps;
  lastMs = ms;
  lastQueue = queue;
  return queue;
}
